"""Discounts and tax.

Amounts are Decimal and are rounded half-up to the cent after each step, the way the accounting
team does it by hand, so printed invoices and their books always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from invoicer.models import Invoice

CENT = Decimal("0.01")

# (threshold, rate), highest first: an order whose subtotal reaches the threshold gets the rate off.
BULK_TIERS = (
    (Decimal("5000.00"), Decimal("0.10")),
    (Decimal("1000.00"), Decimal("0.05")),
)


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    discount: Decimal
    tax: Decimal
    total: Decimal


def round_money(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def bulk_discount(subtotal: Decimal) -> Decimal:
    for threshold, rate in BULK_TIERS:
        if subtotal >= threshold:
            return round_money(subtotal * rate)
    return Decimal("0.00")


def compute_totals(invoice: Invoice) -> Totals:
    subtotal = round_money(sum((line.amount for line in invoice.lines), Decimal("0")))
    discount = bulk_discount(subtotal)
    tax = round_money(subtotal * invoice.tax_rate)
    return Totals(subtotal, discount, tax, subtotal - discount + tax)
