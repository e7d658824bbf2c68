"""Print the yearly sales report: units and revenue per month, region and product.

The figures come from a fixed-seed generator, so the report is identical on every run; it stands in
for the warehouse export until the real orders are read from data/.

Usage: python3 tools/gen_report.py [--month YYYY-MM]
"""

# TODO: read the real orders from data/ instead of generating them.

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from decimal import Decimal

SEED = 1042
YEAR = 2024
REGIONS = ("North", "South", "East", "West")
PRODUCTS = (
    ("INV-100", "Paper invoice pad A5", Decimal("4.50")),
    ("INV-110", "Paper invoice pad A4", Decimal("6.20")),
    ("LBL-220", "Shipping labels, roll of 500", Decimal("18.90")),
    ("LBL-230", "Address labels, sheet of 24", Decimal("0.85")),
    ("PRN-310", "Thermal receipt printer", Decimal("289.00")),
    ("PRN-320", "Label printer, USB", Decimal("149.00")),
    ("TNR-050", "Toner cartridge, black", Decimal("64.75")),
    ("TNR-051", "Toner cartridge, colour set", Decimal("189.00")),
    ("ENV-400", "Window envelopes, box of 500", Decimal("21.40")),
    ("STP-900", "Stapler, heavy duty", Decimal("17.95")),
)
# Office supplies sell more after the summer and before the year-end closing.
SEASON = (90, 85, 100, 95, 90, 80, 70, 75, 110, 115, 125, 130)
Totals = dict[str, Decimal]
ROW = "{sku:<9}{name:<29}{units:>7}{revenue:>13}{returns:>8}{net:>14}"


class Lcg:
    """A tiny linear congruential generator: the same numbers on every Python version."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def below(self, limit: int) -> int:
        self.state = (self.state * 1103515245 + 12345) % 2**31
        return (self.state >> 8) % limit


def month_arg(text: str) -> str:
    if not re.fullmatch(rf"{YEAR}-(0[1-9]|1[0-2])", text):
        raise argparse.ArgumentTypeError(f"expected YYYY-MM within {YEAR}, got {text!r}")
    return text


def sales(month: int, region: int) -> list[tuple[str, str, Decimal, int, int]]:
    """(sku, name, unit price, units sold, units returned) for one month in one region."""
    rng = Lcg(SEED * 1000 + month * 10 + region)
    rows = []
    for sku, name, price in PRODUCTS:
        demand = max(2, int(3000 / (float(price) ** 0.5 + 4)))
        units = demand * SEASON[month - 1] // 100 + rng.below(demand // 3 + 1)
        returns = rng.below(units // 40 + 2)
        rows.append((sku, name, price, units, returns))
    return rows


def money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def print_month(month: int, by_region: Totals, by_product: Totals) -> Decimal:
    label = f"{YEAR}-{month:02d}"
    print(f"=== {label} " + "=" * (68 - len(label)))
    print(ROW.format(sku="SKU", name="Product", units="Units", revenue="Revenue", returns="Returns",
                     net="Net revenue"))
    month_net = Decimal("0")
    for region_index, region in enumerate(REGIONS):
        print(f"[{region}]")
        units_sum, net_sum = 0, Decimal("0")
        for sku, name, price, units, returns in sales(month, region_index):
            net = price * (units - returns)
            units_sum += units
            net_sum += net
            by_product[f"{sku} {name}"] += net
            print(ROW.format(sku=sku, name=name, units=units, revenue=money(price * units), returns=returns,
                             net=money(net)))
        print(ROW.format(sku="", name=f"{region} total", units=f"{units_sum:,}", revenue="", returns="",
                         net=money(net_sum)))
        by_region[region] += net_sum
        month_net += net_sum
    print(f"Month total {label}: {money(month_net)} EUR net")
    print()
    return month_net


def print_summary(by_region: Totals, by_product: Totals, by_month: dict[str, Decimal]) -> None:
    year_net = sum(by_month.values(), Decimal("0"))
    print("=== Year summary " + "=" * 55)
    for region in REGIONS:
        share = by_region[region] / year_net * 100
        print(f"{region:<8}{money(by_region[region]):>16} EUR net  {share:>5.1f}%")
    print(f"{'Year':<8}{money(year_net):>16} EUR net")
    print("Top products by net revenue:")
    for rank, (product, net) in enumerate(sorted(by_product.items(), key=lambda item: -item[1])[:3], start=1):
        print(f"  {rank}. {product:<40}{money(net):>16} EUR")
    best = max(by_month, key=lambda month: by_month[month])
    print(f"Best month: {best} ({money(by_month[best])} EUR net)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=f"Print the {YEAR} sales report.")
    parser.add_argument("--month", type=month_arg, help="only this month (YYYY-MM)")
    args = parser.parse_args(argv)
    print(f"ACME OFFICE SUPPLIES - SALES REPORT {YEAR}")
    print(f"Figures in EUR, generated from seed {SEED}. Net revenue = (units - returns) x unit price.")
    print()
    by_region: Totals = defaultdict(Decimal)
    by_product: Totals = defaultdict(Decimal)
    by_month: dict[str, Decimal] = {}
    for month in range(1, 13):
        if args.month in (None, f"{YEAR}-{month:02d}"):
            by_month[f"{YEAR}-{month:02d}"] = print_month(month, by_region, by_product)
    if args.month is None:
        print_summary(by_region, by_product, by_month)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
