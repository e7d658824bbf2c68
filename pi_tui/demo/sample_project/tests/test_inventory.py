import unittest
from decimal import Decimal

from invoicer.inventory import InsufficientStock, Inventory
from invoicer.models import Invoice, LineItem


class InventoryTest(unittest.TestCase):
    def test_receive_adds_to_the_level(self) -> None:
        stock = Inventory({"INV-100": 5})
        stock.receive("INV-100", 20)
        self.assertEqual(stock.level("INV-100"), 25)

    def test_receive_rejects_non_positive_quantities(self) -> None:
        with self.assertRaises(ValueError):
            Inventory().receive("INV-100", 0)

    def test_check_available(self) -> None:
        stock = Inventory({"PRN-310": 2})
        stock.check_available("PRN-310", 2)
        with self.assertRaises(InsufficientStock):
            stock.check_available("PRN-310", 3)

    def test_ship_invoice_takes_every_line_out_of_stock(self) -> None:
        stock = Inventory({"INV-100": 50, "TNR-050": 10})
        invoice = Invoice("T-2", "Test Customer", [
            LineItem("INV-100", "Paper invoice pad A5", 40, Decimal("4.50")),
            LineItem("TNR-050", "Toner cartridge, black", 6, Decimal("64.75")),
        ])
        stock.ship_invoice(invoice)
        self.assertEqual((stock.level("INV-100"), stock.level("TNR-050")), (10, 4))


if __name__ == "__main__":
    unittest.main()
