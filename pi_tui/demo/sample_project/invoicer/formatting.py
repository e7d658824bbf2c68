"""Renderings of an invoice for people (fixed-width text for e-mails and printouts)."""

from __future__ import annotations

from decimal import Decimal

from invoicer.models import Invoice
from invoicer.pricing import Totals, compute_totals

WIDTH = 64


def format_money(amount: Decimal, currency: str) -> str:
    return f"{amount:,.2f} {currency}"


def render_text(invoice: Invoice) -> str:
    """The invoice as a fixed-width block: header, one row per line item, then the totals.

    Descriptions are cut to 25 characters so the amount column always lines up, even in mail
    clients that use a proportional font for everything else.
    """
    totals = compute_totals(invoice)
    header = f"INVOICE {invoice.number}"
    lines = [
        header + invoice.customer.rjust(WIDTH - len(header)),
        "=" * WIDTH,
        f"{'SKU':<10}{'Description':<26}{'Qty':>5}{'Amount':>23}",
        "-" * WIDTH,
    ]
    for item in invoice.lines:
        amount = format_money(item.amount, invoice.currency)
        lines.append(f"{item.sku:<10}{item.description[:25]:<26}{item.quantity:>5}{amount:>23}")
    lines.append("-" * WIDTH)
    for label, value in _totals_rows(totals):
        lines.append(f"{label:<20}{format_money(value, invoice.currency):>{WIDTH - 20}}")
    return "\n".join(lines)


def _totals_rows(totals: Totals) -> list[tuple[str, Decimal]]:
    """Label and amount of each totals row; the discount row only appears when there is one."""
    rows = [("Subtotal", totals.subtotal)]
    if totals.discount:
        rows.append(("Discount", -totals.discount))
    rows.extend([("Tax", totals.tax), ("Total", totals.total)])
    return rows
