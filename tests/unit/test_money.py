"""The ISO 4217 table (templates/runtime/currencies.py, which the generator loads too) agrees with the data the
maintenance agency publishes, and conversions follow each currency's decimals (issue 17 defect 1)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.conversions import known_factor, minor_note, unknown_currency
from mcpgen.currencies import LIST_ONE_PUBLISHED, MINOR_UNITS
from mcpgen.pipeline import generate
from tests.support.paths import ROOT


def test_the_generator_reads_the_servers_own_table() -> None:
    """One table, no copy: mcpgen/currencies.py is the runtime's templates/runtime/currencies.py, loaded."""
    path = ROOT / "templates" / "runtime" / "currencies.py"
    spec = importlib.util.spec_from_file_location("runtime_currencies_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.MINOR_UNITS is not MINOR_UNITS and module.MINOR_UNITS == MINOR_UNITS
    conversion = (ROOT / "templates" / "runtime" / "conversion.py").read_text(encoding="utf-8")
    assert "from .currencies import MINOR_UNITS" in conversion and '"USD": 2' not in conversion


def test_the_table_is_iso_4217_list_one_as_published() -> None:
    iso4217 = pytest.importorskip("iso4217", reason="the iso4217 package ships SIX's list one")
    published = {c.code: c.exponent for c in iso4217.Currency if c.exponent is not None}
    assert MINOR_UNITS == published
    table = (importlib.util.find_spec("iso4217").origin or "").replace("__init__.py", "table.xml")  # type: ignore[union-attr]
    with open(table, encoding="utf-8") as xml:
        assert f'Pblshd="{LIST_ONE_PUBLISHED}"' in xml.read(400)


@pytest.mark.parametrize(
    ("agent", "upstream", "factor"),
    [("jpy", "minor", 1), ("usd", "minor", 100), ("kwd", "minor", 1000), ("usd", "cents", 100),
     ("clf", "minor", 10000), ("minor", "kwd", 0.001), ("gib", "mib", 1024), ("mib", "bytes", 1048576)],
)  # fmt: skip
def test_factors_follow_the_currencys_decimals(agent: str, upstream: str, factor: float) -> None:
    assert known_factor(agent, upstream) == factor


def test_unknown_codes_and_ambiguous_sizes_have_no_factor() -> None:
    assert known_factor("xyz", "minor") is None and unknown_currency("xyz", "minor") == "xyz"
    assert unknown_currency("jpy", "minor") is None
    assert known_factor("gb", "mb") is None  # 1000 or 1024: the mapping says which


def test_the_factor_is_said_in_words() -> None:
    assert minor_note("JPY") == "1 JPY = 1 minor unit (JPY has no decimals)"
    assert minor_note("kwd") == "1 KWD = 1000 minor units (KWD has 3 decimals)"


def test_the_runtime_knows_the_local_time_pattern_the_build_writes() -> None:
    """mcpgen/build/times.py marks a field that takes a local time beside its time zone with this
    exact pattern; templates/runtime/times.py checks the pair by it (issue 17 defect 7)."""
    from mcpgen.build import times

    spec = importlib.util.spec_from_file_location(
        "runtime_times", ROOT / "templates" / "runtime" / "times.py"
    )
    assert spec is not None and spec.loader is not None
    runtime = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runtime)  # it imports only the standard library
    assert (runtime.LOCAL_OR_OFFSET, runtime.ZONE_KEYS) == (times.LOCAL_OR_OFFSET, times.ZONE_KEYS)
    # validation.py names what such a value must be instead of showing the pattern: the same string
    validation = (ROOT / "templates" / "runtime" / "validation.py").read_text(encoding="utf-8")
    found = re.search(r'_LOCAL_OR_OFFSET = \(\n    r"(.*)"\n\)', validation)
    assert found is not None and found.group(1) == times.LOCAL_OR_OFFSET


# ---- the runtime's conversion, as generated (templates/runtime/conversion.py) -----------------------

RUNTIME = ROOT / "templates" / "runtime"
RUNTIME_PACKAGE = "mcpgen_runtime_money"


@pytest.fixture(scope="module")
def runtime() -> Iterator[tuple[ModuleType, ModuleType]]:
    """conversion.py and routing.py, from templates/runtime imported as the package every generated
    package with units carries."""
    spec = importlib.util.spec_from_file_location(
        RUNTIME_PACKAGE, RUNTIME / "__init__.py", submodule_search_locations=[str(RUNTIME)]
    )
    assert spec is not None and spec.loader is not None
    sys.modules[RUNTIME_PACKAGE] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[RUNTIME_PACKAGE])
    try:
        yield (
            importlib.import_module(f"{RUNTIME_PACKAGE}.conversion"),
            importlib.import_module(f"{RUNTIME_PACKAGE}.routing"),
        )
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == RUNTIME_PACKAGE]:
            del sys.modules[name]


@settings(max_examples=300, deadline=None)
@given(code=st.sampled_from(sorted(MINOR_UNITS)), minor=st.integers(min_value=-(10**12), max_value=10**12))
def test_an_amount_goes_out_and_comes_back_unchanged(
    runtime: tuple[ModuleType, ModuleType], code: str, minor: int
) -> None:
    """Any amount a currency can carry (its minor units, as the agent writes it in the main unit) is
    sent as exactly that many minor units and read back as the same number."""
    conversion, routing = runtime
    unit = routing.Unit(agent="major", upstream="minor", factor=0, integer=True, currency_arg="currency",
                        currency_sibling="currency")  # fmt: skip
    param = routing.Param(arg="amount", wire="amount", at="body", unit=unit)
    major = float(Decimal(minor) / Decimal(10) ** MINOR_UNITS[code])
    if Decimal(str(major)) * Decimal(10) ** MINOR_UNITS[code] != minor:
        return  # a float cannot write this many digits; JSON would not carry it either
    sent = conversion.to_upstream(param, {"amount": major, "currency": code})
    assert sent == minor and isinstance(sent, int)
    assert conversion.to_agent(unit, sent, {"currency": code}) == major


def test_a_rename_that_claims_another_unit_is_warned(tmp_path: Path) -> None:
    """issue 12 defect 6: `size: {name: size_gb}` alone keeps the API's MB under a GB name.
    # .cache/corpus/package/api/linode.com.json /components/schemas/Disk/properties/size ("The size of the Disk in MB.")"""
    real = ROOT / "tests" / "fixtures" / "realspecs"
    declared = "size: {name: size_gb, unit: {agent: gb, upstream: mb, factor: 1024}}"
    mapping = (real / "linode.mapping.yaml").read_text(encoding="utf-8")
    assert declared in mapping
    bare = tmp_path / "mapping.yaml"
    bare.write_text(mapping.replace(declared, "size: {name: size_gb}"), encoding="utf-8")
    [warned] = [d for d in generate(real / "linode-disks.json", bare).diagnostics if d.code == "M223"]
    assert "'size_gb' says gb, but the spec counts 'size' in MB and nothing converts it" in warned.message
    # With the unit, nothing is left but the Volume's size, which only shares the name (M224).
    assert [
        d.code for d in generate(real / "linode-disks.json", real / "linode.mapping.yaml").diagnostics
    ] == ["M224"]


@pytest.mark.parametrize(
    ("hours", "minutes"),
    [(20 / 60, 20), (1 / 3, 20), (0.1 + 0.2, 18), (2.5, 150), (1 / 60, 1), (7 / 60 * 3, 21)],
)
def test_decimal_hours_ask_for_whole_minutes(
    runtime: tuple[ModuleType, ModuleType], hours: float, minutes: int
) -> None:
    """A value off a whole number of the API's units by float error only is that whole number: no
    decimal hours writes 20 minutes exactly, and 0.1 + 0.2 is not 0.3."""
    conversion, routing = runtime
    unit = routing.Unit(agent="h", upstream="min", factor=60, integer=True)
    param = routing.Param(arg="duration_h", wire="duration", at="body", unit=unit)
    sent = conversion.to_upstream(param, {"duration_h": hours})
    assert sent == minutes and isinstance(sent, int)


def test_a_value_truly_finer_than_the_api_is_refused_with_the_nearest_it_takes(
    runtime: tuple[ModuleType, ModuleType],
) -> None:
    conversion, routing = runtime
    unit = routing.Unit(agent="h", upstream="min", factor=60, integer=True)
    param = routing.Param(arg="duration_h", wire="duration", at="body", unit=unit)
    with pytest.raises(conversion.ToolError) as refused:
        conversion.to_upstream(param, {"duration_h": 0.333334})  # 20.00004 minutes
    assert "duration_h=0.333334 is finer than the API accepts: it takes whole min" in refused.value.what
    assert "(the nearest are 0.3333333333333333 or 0.35)" in refused.value.how
    # The nearest values it names are taken as they are.
    assert conversion.to_upstream(param, {"duration_h": 0.3333333333333333}) == 20


@settings(max_examples=300, deadline=None)
@given(cents=st.integers(min_value=0, max_value=10**9), split=st.integers(min_value=0, max_value=10**9))
def test_two_amounts_summed_in_floats_are_their_whole_cents(
    runtime: tuple[ModuleType, ModuleType], cents: int, split: int
) -> None:
    """Whatever float error a sum of two dollar amounts carries, it is sent as its whole cents."""
    conversion, routing = runtime
    part = split % (cents + 1)
    dollars = part / 100 + (cents - part) / 100
    unit = routing.Unit(agent="usd", upstream="cents", factor=100, integer=True)
    param = routing.Param(arg="price_usd", wire="price", at="body", unit=unit)
    assert conversion.to_upstream(param, {"price_usd": dollars}) == cents
