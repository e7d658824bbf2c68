import unittest
from decimal import Decimal

from invoicer.models import Invoice, LineItem
from invoicer.pricing import bulk_discount, compute_totals, round_money


def invoice_of(*amounts: str, tax_rate: str = "0.10") -> Invoice:
    lines = [LineItem(f"SKU-{n}", "Item", 1, Decimal(amount)) for n, amount in enumerate(amounts)]
    return Invoice("T-1", "Test Customer", lines, tax_rate=Decimal(tax_rate))


class RoundMoneyTest(unittest.TestCase):
    def test_rounds_half_up_to_the_cent(self) -> None:
        self.assertEqual(round_money(Decimal("2.675")), Decimal("2.68"))
        self.assertEqual(round_money(Decimal("2.674")), Decimal("2.67"))


class BulkDiscountTest(unittest.TestCase):
    def test_no_discount_below_the_first_tier(self) -> None:
        self.assertEqual(bulk_discount(Decimal("999.99")), Decimal("0.00"))

    def test_tiers_start_at_their_threshold(self) -> None:
        self.assertEqual(bulk_discount(Decimal("1000.00")), Decimal("50.00"))
        self.assertEqual(bulk_discount(Decimal("5000.00")), Decimal("500.00"))


class ComputeTotalsTest(unittest.TestCase):
    def test_small_order_pays_tax_on_the_subtotal(self) -> None:
        totals = compute_totals(invoice_of("40.00", "2.50"))
        self.assertEqual(totals.subtotal, Decimal("42.50"))
        self.assertEqual(totals.discount, Decimal("0.00"))
        self.assertEqual(totals.tax, Decimal("4.25"))
        self.assertEqual(totals.total, Decimal("46.75"))

    def test_tax_is_charged_after_the_discount(self) -> None:
        totals = compute_totals(invoice_of("800.00", "400.00"))
        self.assertEqual(totals.discount, Decimal("60.00"))
        self.assertEqual(totals.tax, Decimal("114.00"))
        self.assertEqual(totals.total, Decimal("1254.00"))

    def test_order_tax_rate_is_used(self) -> None:
        totals = compute_totals(invoice_of("100.00", tax_rate="0.20"))
        self.assertEqual(totals.tax, Decimal("20.00"))


if __name__ == "__main__":
    unittest.main()
