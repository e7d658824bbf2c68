"""Invoicer: turn orders into invoices with discounts and tax, and keep stock in check."""

from invoicer.formatting import render_text
from invoicer.inventory import InsufficientStock, Inventory
from invoicer.models import Invoice, LineItem
from invoicer.pricing import Totals, compute_totals

__version__ = "0.3.0.dev0"

__all__ = [
    "InsufficientStock",
    "Inventory",
    "Invoice",
    "LineItem",
    "Totals",
    "compute_totals",
    "render_text",
]
