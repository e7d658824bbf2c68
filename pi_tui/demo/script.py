"""The demo's coding session, as data: tasks made of tool-using steps, each task closed by a summary.

The script is written against the bundled sample project, and the tool calls really run there: every
`edit` below must match the files exactly (the tests check it), and every sentence that comments on a
result describes what the real tools print. Together the tasks exercise what the pruning engine
handles: big command output, a failed edit with a long argument body, re-reading an unchanged file in
a later task, a skill file under `skills/`, failing commands, parallel calls, and six closed chains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    """One tool call: the tool's name and its arguments exactly as the model would send them."""

    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One assistant turn: a few words, then calls that run in parallel (so never two on one file)."""

    say: str
    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Task:
    title: str
    steps: tuple[Step, ...]
    summary: str


def read(path: str) -> Call:
    return Call("read", {"path": path})


def bash(command: str) -> Call:
    return Call("bash", {"command": command})


def edit(path: str, old_text: str, new_text: str) -> Call:
    return Call("edit", {"path": path, "oldText": old_text, "newText": new_text})


def write(path: str, content: str) -> Call:
    return Call("write", {"path": path, "content": content})


def ls(path: str) -> Call:
    return Call("ls", {"path": path})


def grep(pattern: str, path: str) -> Call:
    return Call("grep", {"pattern": pattern, "path": path})


def find(pattern: str) -> Call:
    return Call("find", {"pattern": pattern})


def step(say: str, *calls: Call) -> Step:
    return Step(say, calls)


RUN_TESTS = bash("python3 -m unittest")
CHANGELOG_HEAD = "## Unreleased\n\n"


def changelog(*lines: str) -> Call:
    """New entries go first under "Unreleased", the one heading every task can anchor on."""
    return edit("CHANGELOG.md", CHANGELOG_HEAD, CHANGELOG_HEAD + "".join(f"- {line}\n" for line in lines))

# ----- task 1: the failing test -------------------------------------------------------------------

TAX_BEFORE = "    tax = round_money(subtotal * invoice.tax_rate)\n"
TAX_AFTER = "    tax = round_money((subtotal - discount) * invoice.tax_rate)\n"

FIX_THE_TESTS = Task(
    title="Get the test suite green",
    steps=(
        step(
            "This is pi-tui's offline demo: no model is attached, so each message you send plays the next "
            "of six scripted tasks on a copy of a small sample project, with the real tools.\n\n"
            "First, a look at the project.",
            ls("."),
            read("README.md"),
        ),
        step(
            "A small stdlib-only package, and AGENTS.md says the tests run with `python3 -m unittest`. "
            "Running them:",
            RUN_TESTS,
        ),
        step(
            "One failure: `test_tax_is_charged_after_the_discount` expects a tax of 114.00 and gets 120.00. "
            "Reading the pricing code, its test and the models it uses.",
            read("invoicer/pricing.py"),
            read("tests/test_pricing.py"),
            read("invoicer/models.py"),
        ),
        step(
            "Found it. `compute_totals` charges tax on the full subtotal, before the bulk discount is taken "
            "off: 10% of 1,200.00 = 120.00, while the README's rule (and the test) want 10% of "
            "1,200.00 - 60.00 = 114.00. One-line fix:",
            edit("invoicer/pricing.py", TAX_BEFORE, TAX_AFTER),
        ),
        step("Re-running the suite.", RUN_TESTS),
    ),
    summary=(
        "Fixed: the suite is green again.\n\n"
        "**The bug:** `compute_totals` in `invoicer/pricing.py` charged tax on the subtotal *before* the "
        "bulk discount, so every discounted order was over-taxed (the test order paid 120.00 tax instead of "
        "114.00).\n\n"
        "**The fix:** tax is now `round_money((subtotal - discount) * invoice.tax_rate)`, as the pricing "
        "rules in the README say.\n\n"
        "**Check:** `python3 -m unittest`: all 14 tests pass (one failed before)."
    ),
)

# ----- task 2: CSV export, with a first edit that fails ---------------------------------------------

# The model's recollection of the code, off by one detail (24 vs 25 characters): the edit must fail.
STALE_RENDER_TEXT = r'''def render_text(invoice: Invoice) -> str:
    """The invoice as a fixed-width block: header, one row per line item, then the totals.

    Descriptions are cut to 24 characters so the amount column always lines up, even in mail
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
        lines.append(f"{item.sku:<10}{item.description[:24]:<26}{item.quantity:>5}{amount:>23}")
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
'''

REFACTORED_RENDERERS = r'''def _item_rows(invoice: Invoice) -> list[tuple[str, str, int, Decimal]]:
    """SKU, description, quantity and amount of each line item: what both renderers show."""
    return [(item.sku, item.description, item.quantity, item.amount) for item in invoice.lines]


def render_text(invoice: Invoice) -> str:
    """The invoice as a fixed-width block: header, one row per line item, then the totals.

    Descriptions are cut to 24 characters so the amount column always lines up, even in mail
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
    for sku, description, quantity, amount in _item_rows(invoice):
        money = format_money(amount, invoice.currency)
        lines.append(f"{sku:<10}{description[:24]:<26}{quantity:>5}{money:>23}")
    lines.append("-" * WIDTH)
    for label, value in _totals_rows(totals):
        lines.append(f"{label:<20}{format_money(value, invoice.currency):>{WIDTH - 20}}")
    return "\n".join(lines)


def render_csv(invoice: Invoice) -> str:
    """The same rows as CSV, for spreadsheets and the accounting import."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["sku", "description", "quantity", "amount", "currency"])
    for sku, description, quantity, amount in _item_rows(invoice):
        writer.writerow([sku, description, quantity, amount, invoice.currency])
    for label, value in _totals_rows(compute_totals(invoice)):
        writer.writerow([label.lower(), "", "", value, invoice.currency])
    return buffer.getvalue()


def _totals_rows(totals: Totals) -> list[tuple[str, Decimal]]:
    """Label and amount of each totals row; the discount row only appears when there is one."""
    rows = [("Subtotal", totals.subtotal)]
    if totals.discount:
        rows.append(("Discount", -totals.discount))
    rows.extend([("Tax", totals.tax), ("Total", totals.total)])
    return rows
'''

TOTALS_ROWS_DEF = "def _totals_rows(totals: Totals) -> list[tuple[str, Decimal]]:\n"

RENDER_CSV = r'''def render_csv(invoice: Invoice) -> str:
    """One row per line item, then one per total, for spreadsheets and the accounting import."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["sku", "description", "quantity", "unit_price", "amount", "currency"])
    for item in invoice.lines:
        writer.writerow([item.sku, item.description, item.quantity, item.unit_price, item.amount,
                         invoice.currency])
    for label, value in _totals_rows(compute_totals(invoice)):
        writer.writerow([label.lower(), "", "", "", value, invoice.currency])
    return buffer.getvalue()


'''

FORMATTING_HEAD = '''"""Renderings of an invoice for people (fixed-width text for e-mails and printouts)."""

from __future__ import annotations

from decimal import Decimal
'''

FORMATTING_HEAD_WITH_CSV = '''\
"""Renderings of an invoice: fixed-width text for people, CSV for spreadsheets."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
'''

CSV_TESTS = '''import csv
import io
import unittest
from decimal import Decimal

from invoicer.formatting import render_csv
from invoicer.models import Invoice, LineItem


def parse(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


class RenderCsvTest(unittest.TestCase):
    def setUp(self) -> None:
        self.invoice = Invoice("2024-0007", "Blue Harbor Cafe", [
            LineItem("INV-100", "Paper invoice pad A5", 10, Decimal("4.50")),
            LineItem("LBL-220", "Shipping labels, roll of 500", 2, Decimal("18.90")),
        ])

    def test_header_and_one_row_per_item(self) -> None:
        rows = parse(render_csv(self.invoice))
        self.assertEqual(rows[0], ["sku", "description", "quantity", "unit_price", "amount", "currency"])
        self.assertEqual(rows[1], ["INV-100", "Paper invoice pad A5", "10", "4.50", "45.00", "EUR"])

    def test_commas_in_descriptions_are_quoted(self) -> None:
        self.assertIn('"Shipping labels, roll of 500"', render_csv(self.invoice))

    def test_totals_follow_the_items(self) -> None:
        rows = parse(render_csv(self.invoice))
        self.assertEqual([row[0] for row in rows[3:]], ["subtotal", "tax", "total"])
        self.assertEqual(rows[-1][4], "91.08")


if __name__ == "__main__":
    unittest.main()
'''

CSV_EXPORT = Task(
    title="Add CSV export for invoices",
    steps=(
        step(
            "Accounting wants invoices as CSV. First: where does rendering live, and what does it build on?",
            find("*.py"),
            grep("def render", "invoicer"),
        ),
        step(
            "Rendering is all in `invoicer/formatting.py` (`render_text`). Reading it together with the "
            "models it formats.",
            read("invoicer/formatting.py"),
            read("invoicer/models.py"),
        ),
        step(
            "Plan: pull the per-item rows out of `render_text` into a helper that both the text and the new "
            "CSV renderer use, so the two can never disagree.",
            edit("invoicer/formatting.py", STALE_RENDER_TEXT, REFACTORED_RENDERERS),
        ),
        step(
            "The edit was rejected: my `oldText` cut descriptions at 24 characters where the file says 25, "
            "so it matched nothing. Rewriting the whole function was more than this needs anyway: I'll leave "
            "`render_text` alone and add `render_csv` beside it with a small, anchored edit.",
            edit("invoicer/formatting.py", TOTALS_ROWS_DEF, RENDER_CSV + TOTALS_ROWS_DEF),
        ),
        step(
            "`render_csv` needs the `csv` and `io` modules, so they go into the imports (and the module "
            "docstring now mentions CSV). Adding tests in a new file at the same time.",
            edit("invoicer/formatting.py", FORMATTING_HEAD, FORMATTING_HEAD_WITH_CSV),
            write("tests/test_csv_export.py", CSV_TESTS),
        ),
        step("Running the whole suite.", RUN_TESTS),
    ),
    summary=(
        "Added **CSV export**: `render_csv(invoice)` in `invoicer/formatting.py`.\n\n"
        "- Columns `sku, description, quantity, unit_price, amount, currency`: one row per line item, then "
        "`subtotal`, `discount` (when there is one), `tax` and `total` rows.\n"
        "- Written with the `csv` module, so descriptions containing commas are quoted; amounts stay exact "
        "`Decimal` strings.\n"
        "- Totals come from the same `_totals_rows` as the text invoice, so the two can't drift apart.\n"
        "- New tests in `tests/test_csv_export.py` (3); the suite is green with 17 tests.\n\n"
        "My first edit failed because its `oldText` didn't match the file; the smaller second edit went in "
        "cleanly."
    ),
)

# ----- task 3: a long report and a command that fails ---------------------------------------------

SALES_REPORT = Task(
    title="Check the 2024 sales report, with a closer look at March",
    steps=(
        step(
            "The report comes from `tools/gen_report.py`; reading it to see what it prints and which options "
            "it takes.",
            read("tools/gen_report.py"),
        ),
        step(
            "It prints every month x region x product, then a year summary. Running the full report (it is "
            "long).",
            bash("python3 tools/gen_report.py"),
        ),
        step(
            "That's about 46 KB of figures. For March alone there is a `--month` option:",
            bash("python3 tools/gen_report.py --month march"),
        ),
        step(
            "Exit code 2: `--month` wants `YYYY-MM`, not a month name. Again with the right format:",
            bash("python3 tools/gen_report.py --month 2024-03"),
        ),
    ),
    summary=(
        "**2024 sales report** (`python3 tools/gen_report.py`, 638 lines):\n\n"
        "| | Net revenue (EUR) |\n"
        "|---|---:|\n"
        "| Year | 7,669,718.25 |\n"
        "| Best month (December) | 828,071.45 |\n"
        "| Weakest month (July) | 495,894.05 |\n"
        "| March | 641,431.60 |\n\n"
        "- Regions are balanced: East leads with 25.4%, North trails with 24.7%.\n"
        "- Top products: thermal receipt printer (2,197,845.00), colour toner set (1,721,979.00), USB label "
        "printer (1,479,123.00).\n"
        "- March is the strongest month of the first half; sales dip in summer and climb from September.\n"
        "- Caveat: the figures come from a fixed-seed generator (see the TODO in `tools/gen_report.py`), not "
        "from real orders.\n\n"
        "`--month` takes `YYYY-MM`: `--month march` fails with exit code 2, `--month 2024-03` works."
    ),
)

# ----- task 4: release notes, following the project's skill ----------------------------------------


RELEASE_NOTES = """# invoicer 0.3.0

## Highlights

- Export invoices as CSV with `render_csv`, ready for spreadsheets and the accounting import.
- Orders can carry their own tax rate (`tax_rate` in the order file); 10% stays the default.
- `Inventory.check_available` tells you before shipping whether stock covers an order.

## Fixes

- Orders that earned a bulk discount were charged too much tax: it was computed on the amount
  before the discount. Tax is now charged on the discounted amount, as the pricing rules say.

## Upgrade notes

None for code. Invoices issued earlier for discounted orders overstate the tax; re-issue them if
customers need corrected copies.
"""

RELEASE_NOTES_TASK = Task(
    title="Draft the release notes for the next version",
    steps=(
        step(
            "The project has a skill for exactly this, `skills/release-notes/SKILL.md`. Following it.",
            read("skills/release-notes/SKILL.md"),
        ),
        step(
            "The skill wants the changelog's *Unreleased* section, the version from `__version__`, a green "
            "test run, then `docs/release-notes/<version>.md`. Gathering the inputs:",
            read("CHANGELOG.md"),
            read("README.md"),
            grep("__version__", "invoicer"),
        ),
        step(
            "Version 0.3.0. The changelog lacks this session's two changes (the tax fix and CSV export), so "
            "per step 1 I'm adding them, and running the test gate.",
            changelog(
                "Tax is charged on the subtotal after the bulk discount (it was charged before it).",
                "`render_csv` exports an invoice as CSV for spreadsheets and the accounting import.",
            ),
            RUN_TESTS,
        ),
        step(
            "Tests are green (17 passed). Writing the notes.",
            write("docs/release-notes/0.3.0.md", RELEASE_NOTES),
        ),
    ),
    summary=(
        "Release notes for **0.3.0** are in `docs/release-notes/0.3.0.md`, written the way "
        "`skills/release-notes/SKILL.md` asks:\n\n"
        "- **Highlights:** CSV export, per-order tax rates, a stock check before shipping.\n"
        "- **Fixes:** discounted orders were over-taxed.\n"
        "- **Upgrade notes:** nothing to change in code; earlier invoices for discounted orders overstate "
        "the tax.\n\n"
        "Before writing, I added this session's two changes to `CHANGELOG.md` under *Unreleased* and passed "
        "the skill's test gate (17 tests green)."
    ),
)

# ----- task 5: the TODOs ---------------------------------------------------------------------------

SHIP_BEFORE = """    def ship(self, sku: str, quantity: int) -> None:
        # TODO: refuse to ship more than we have; today the level just goes negative.
        self._levels[sku] = self.level(sku) - quantity

    def ship_invoice(self, invoice: Invoice) -> None:
        for line in invoice.lines:
            self.ship(line.sku, line.quantity)
"""

SHIP_AFTER = """    def ship(self, sku: str, quantity: int) -> None:
        self.check_available(sku, quantity)
        self._levels[sku] = self.level(sku) - quantity

    def ship_invoice(self, invoice: Invoice) -> None:
        \"\"\"Ship all lines or none: a short SKU must not leave the order half shipped.\"\"\"
        wanted: dict[str, int] = {}
        for line in invoice.lines:
            wanted[line.sku] = wanted.get(line.sku, 0) + line.quantity
        for sku, quantity in wanted.items():
            self.check_available(sku, quantity)
        for sku, quantity in wanted.items():
            self._levels[sku] = self.level(sku) - quantity
"""

LAST_INVENTORY_ASSERT = (
    '        self.assertEqual((stock.level("INV-100"), stock.level("TNR-050")), (10, 4))\n'
)

NEW_INVENTORY_TESTS = '''
    def test_ship_refuses_to_go_below_zero(self) -> None:
        stock = Inventory({"PRN-310": 1})
        with self.assertRaises(InsufficientStock):
            stock.ship("PRN-310", 2)
        self.assertEqual(stock.level("PRN-310"), 1)

    def test_a_short_order_ships_nothing(self) -> None:
        stock = Inventory({"INV-100": 50, "TNR-050": 1})
        invoice = Invoice("T-3", "Test Customer", [
            LineItem("INV-100", "Paper invoice pad A5", 40, Decimal("4.50")),
            LineItem("TNR-050", "Toner cartridge, black", 6, Decimal("64.75")),
        ])
        with self.assertRaises(InsufficientStock):
            stock.ship_invoice(invoice)
        self.assertEqual((stock.level("INV-100"), stock.level("TNR-050")), (50, 1))
'''

TODOS = Task(
    title="Resolve the TODO comments",
    steps=(
        step("Finding the TODOs, and checking which tests exist:", grep("TODO", "."), ls("tests")),
        step(
            "Two TODOs. `invoicer/inventory.py`: shipping can drive stock negative, a real bug. "
            "`tools/gen_report.py`: read real orders instead of generated figures, a feature that needs a "
            "decision about the export format, so I'll leave it. Reading the inventory code and its tests.",
            read("invoicer/inventory.py"),
            read("tests/test_inventory.py"),
        ),
        step(
            "`check_available` already exists; `ship` just never calls it. Fixing `ship`, making "
            "`ship_invoice` all-or-nothing (check every SKU before taking anything out of stock), adding "
            "tests for both, and a changelog line as AGENTS.md asks.",
            edit("invoicer/inventory.py", SHIP_BEFORE, SHIP_AFTER),
            edit("tests/test_inventory.py", LAST_INVENTORY_ASSERT,
                 LAST_INVENTORY_ASSERT + NEW_INVENTORY_TESTS),
            changelog("Shipping refuses what stock cannot cover, and ships nothing of a short order."),
        ),
        step("Running the suite.", RUN_TESTS),
    ),
    summary=(
        "Resolved the inventory TODO:\n\n"
        "- `Inventory.ship` raises `InsufficientStock` instead of letting the level go negative.\n"
        "- `Inventory.ship_invoice` is all-or-nothing: it adds up the quantities per SKU, checks them all, "
        "and only then ships, so a short order leaves stock untouched.\n"
        "- 2 new tests in `tests/test_inventory.py`, and a line in `CHANGELOG.md`. Suite: 19 tests pass.\n\n"
        "Left open on purpose: the TODO in `tools/gen_report.py` (read real orders instead of generated "
        "figures) first needs a decision about the order export format."
    ),
)

# ----- task 6: a command line ----------------------------------------------------------------------

MAIN_MODULE = '''"""Print an invoice for an order file: python3 -m invoicer ORDER.json [--csv]."""

import argparse
import json
import sys
from pathlib import Path

from invoicer.formatting import render_csv, render_text
from invoicer.models import Invoice


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m invoicer", description=__doc__)
    parser.add_argument("order", type=Path, help="order file in JSON (see data/)")
    parser.add_argument("--csv", action="store_true", help="print CSV instead of the text invoice")
    args = parser.parse_args(argv)
    try:
        invoice = Invoice.from_dict(json.loads(args.order.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, ArithmeticError) as exc:
        print(f"error: cannot read {args.order}: {exc}", file=sys.stderr)
        return 1
    print(render_csv(invoice) if args.csv else render_text(invoice))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

CLI_TESTS = '''import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from invoicer.__main__ import main

ORDER = Path(__file__).resolve().parent.parent / "data" / "order-1042.json"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


class CommandLineTest(unittest.TestCase):
    def test_prints_the_text_invoice(self) -> None:
        code, out, _ = run(str(ORDER))
        self.assertEqual(code, 0)
        self.assertIn("INVOICE 2024-1042", out)
        self.assertIn("1,565.56 EUR", out)

    def test_csv_flag(self) -> None:
        code, out, _ = run(str(ORDER), "--csv")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("sku,description,quantity"))

    def test_unreadable_order_is_a_one_line_error(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            bad = Path(folder) / "bad.json"
            bad.write_text("{not json", encoding="utf-8")
            code, out, err = run(str(bad))
        self.assertEqual((code, out), (1, ""))
        self.assertTrue(err.startswith("error: cannot read"))


if __name__ == "__main__":
    unittest.main()
'''

COMMAND_LINE = Task(
    title="Add a command line that prints an invoice from an order file",
    steps=(
        step(
            "Looking at the sample orders and the package's public API:",
            ls("data"),
            read("invoicer/__init__.py"),
            read("data/order-1042.json"),
        ),
        step(
            "`Invoice.from_dict` already reads this format, so the command line is small: "
            "`python3 -m invoicer ORDER.json [--csv]`. Writing `invoicer/__main__.py` with its tests, plus a "
            "changelog line.",
            write("invoicer/__main__.py", MAIN_MODULE),
            write("tests/test_cli.py", CLI_TESTS),
            changelog("`python3 -m invoicer ORDER.json [--csv]` prints the invoice for an order file."),
        ),
        step(
            "Trying it on the sample order, in both formats:",
            bash("python3 -m invoicer data/order-1042.json"),
            bash("python3 -m invoicer data/order-1042.json --csv"),
        ),
        step(
            "Both work, and the totals follow the pricing rules (5% bulk discount, then 20% tax on the "
            "discounted amount). Final test run:",
            RUN_TESTS,
        ),
    ),
    summary=(
        "Added the command line: `python3 -m invoicer ORDER.json [--csv]`.\n\n"
        "- `invoicer/__main__.py` reads the order with `Invoice.from_dict` and prints the text invoice, or "
        "the CSV export with `--csv`; an unreadable file gives a one-line error and exit code 1.\n"
        "- `tests/test_cli.py`: 3 tests. The whole suite passes: 22 tests.\n"
        "- Sample order 2024-1042: subtotal 1,373.30, discount 68.67, tax 260.93, **total 1,565.56 EUR**.\n\n"
        "That completes the session: the tax bug is fixed, CSV export and the command line are in, stock "
        "can no longer go negative, and 0.3.0 has release notes."
    ),
)

TASKS: tuple[Task, ...] = (FIX_THE_TESTS, CSV_EXPORT, SALES_REPORT, RELEASE_NOTES_TASK, TODOS, COMMAND_LINE)

DEMO_OVER = (
    "The demo is over: all {total} scripted tasks have been played, and the copy of the sample project "
    "keeps their changes.\n\n"
    "To work on your own code with a real model, set an API key and pick a model, for example:\n\n"
    "```\n"
    "export ANTHROPIC_API_KEY=...\n"
    "pi-tui --model anthropic/claude-sonnet-4-5\n"
    "```\n\n"
    "Other providers work the same way (`OPENAI_API_KEY` with `--model openai/gpt-5.1`, and so on)."
)
