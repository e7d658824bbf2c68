"""Stock levels per SKU, and shipping the goods of an invoice."""

from __future__ import annotations

from invoicer.models import Invoice


class InsufficientStock(Exception):
    """An order asks for more units of a SKU than are on hand."""


class Inventory:
    def __init__(self, levels: dict[str, int] | None = None) -> None:
        self._levels = dict(levels or {})

    def level(self, sku: str) -> int:
        return self._levels.get(sku, 0)

    def receive(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError(f"received quantity must be positive, got {quantity}")
        self._levels[sku] = self.level(sku) + quantity

    def check_available(self, sku: str, quantity: int) -> None:
        if quantity > self.level(sku):
            raise InsufficientStock(f"{sku}: {quantity} requested, {self.level(sku)} on hand")

    def ship(self, sku: str, quantity: int) -> None:
        # TODO: refuse to ship more than we have; today the level just goes negative.
        self._levels[sku] = self.level(sku) - quantity

    def ship_invoice(self, invoice: Invoice) -> None:
        for line in invoice.lines:
            self.ship(line.sku, line.quantity)
