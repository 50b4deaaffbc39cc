"""The faces' help says the configured clock-skew bound, not a hard-coded "5 minutes".

Regression: the CLI's ``conversation add --at`` help, the HTTP message schema and the MCP
``conversation_add`` description said "5 minutes", while the bound is
``Limits.max_clock_skew_seconds`` (300 s by default, configurable per ``Memory``): under any other
setting the help was wrong.
"""

from __future__ import annotations

from click.testing import CliRunner

from reverie import Limits
from reverie.cli import cli
from reverie.http.conversations import MessageIn
from reverie.mcp.catalog import DESCRIPTIONS

BOUND = f"Limits.max_clock_skew_seconds, default {Limits().max_clock_skew_seconds} s"


def _say_the_configured_bound(text: str) -> None:
    flat = " ".join(text.split())
    assert "5 minutes" not in flat
    assert BOUND in flat, flat


def test_cli_conversation_add_help_names_the_configured_bound() -> None:
    out = CliRunner().invoke(cli, ["conversation", "add", "--help"], terminal_width=400)
    assert out.exit_code == 0
    _say_the_configured_bound(out.output)


def test_http_message_schema_names_the_configured_bound() -> None:
    _say_the_configured_bound(MessageIn.model_json_schema()["properties"]["at"]["description"])


def test_mcp_conversation_add_names_the_configured_bound() -> None:
    _say_the_configured_bound(DESCRIPTIONS["conversation_add"])
