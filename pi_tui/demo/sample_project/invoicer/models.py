"""The data an invoice is made of. Plain dataclasses: pricing and formatting live elsewhere."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class LineItem:
    sku: str
    description: str
    quantity: int
    unit_price: Decimal

    @property
    def amount(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class Invoice:
    number: str
    customer: str
    lines: list[LineItem] = field(default_factory=list)
    tax_rate: Decimal = Decimal("0.10")
    currency: str = "EUR"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Invoice:
        """Build an invoice from an order file (see data/). Prices arrive as strings to stay exact."""
        lines = [
            LineItem(item["sku"], item["description"], int(item["quantity"]), Decimal(item["unit_price"]))
            for item in data["lines"]
        ]
        return cls(
            number=data["number"],
            customer=data["customer"],
            lines=lines,
            tax_rate=Decimal(data.get("tax_rate", "0.10")),
            currency=data.get("currency", "EUR"),
        )
