import unittest
from decimal import Decimal

from invoicer.formatting import WIDTH, format_money, render_text
from invoicer.models import Invoice, LineItem


def sample_invoice() -> Invoice:
    return Invoice(
        "2024-0007",
        "Blue Harbor Cafe",
        [
            LineItem("INV-100", "Paper invoice pad A5", 10, Decimal("4.50")),
            LineItem("LBL-220", "Shipping labels, roll of 500 (extra strong adhesive)", 2, Decimal("18.90")),
        ],
    )


class FormatMoneyTest(unittest.TestCase):
    def test_groups_thousands_and_names_the_currency(self) -> None:
        self.assertEqual(format_money(Decimal("1234.5"), "EUR"), "1,234.50 EUR")


class RenderTextTest(unittest.TestCase):
    def test_every_row_has_the_same_width(self) -> None:
        rows = render_text(sample_invoice()).splitlines()
        self.assertTrue(all(len(row) == WIDTH for row in rows), rows)

    def test_long_descriptions_are_cut(self) -> None:
        text = render_text(sample_invoice())
        self.assertIn("Shipping labels, roll of ", text)
        self.assertNotIn("adhesive", text)

    def test_totals_block(self) -> None:
        text = render_text(sample_invoice())
        self.assertIn("Subtotal", text)
        self.assertNotIn("Discount", text)
        self.assertEqual(text.splitlines()[-1].split(), ["Total", "91.08", "EUR"])


if __name__ == "__main__":
    unittest.main()
