"""The FTS5 query normaliser, checked against a real in-memory SQLite FTS5 table, never a mock."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.recall.normalize import (
    FTS_TOKENIZE,
    MAX_PHRASE_TOKENS,
    MAX_QUERY_TERMS,
    STOPWORDS,
    fts_query,
    tokenize,
)
from reverie.store.fts_tokens import _SEPARATOR_RANGES, _parse_ranges, fts5_tokens, index_form

# --- a real FTS5 table -----------------------------------------------------------------------


class Fts:
    """One in-memory FTS5 table built with FTS_TOKENIZE, plus a vocabulary view of its tokens."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(f"CREATE VIRTUAL TABLE docs USING fts5(text, tokenize={_sql_str(FTS_TOKENIZE)})")
        self.conn.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(docs, 'instance')")

    def tokens(self, text: str) -> list[str]:
        """The tokens FTS5 itself indexes for ``text``, in order."""
        self.conn.execute("DELETE FROM docs")
        self.conn.execute("INSERT INTO docs(rowid, text) VALUES (1, ?)", (text,))
        return [row[0] for row in self.conn.execute("SELECT term FROM vocab ORDER BY doc, offset")]

    def add(self, rowid: int, text: str) -> None:
        """Index ``text`` as the store does: its ``index_form``."""
        self.conn.execute("INSERT INTO docs(rowid, text) VALUES (?, ?)", (rowid, index_form(text)))

    def search(self, expression: str) -> list[int]:
        """Row ids best-first, exactly as the store will run it."""
        sql = "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank, rowid"
        return [row[0] for row in self.conn.execute(sql, (expression,))]

    def close(self) -> None:
        self.conn.close()


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@pytest.fixture
def fts() -> Iterator[Fts]:
    table = Fts()
    try:
        yield table
    finally:
        table.close()


# --- FTS_TOKENIZE does what we claim -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C++", ["c++"]),
        ("C#", ["c#"]),
        ("GB/s", ["gb", "s"]),
        ("don't", ["don", "t"]),
        ("a3f9c2e", ["a3f9c2e"]),
        ("über naïve Café", ["uber", "naive", "cafe"]),
        ("#hashtag @user", ["#hashtag", "user"]),
        ("node.js e-mail U.S. 100% $5", ["node", "js", "e", "mail", "u", "s", "100", "5"]),
        ("日本語", ["日本語"]),
        ("🚀 launch", ["launch"]),  # a Unicode 6.0 emoji: a separator to FTS5
        ("🤖 robot", ["🤖", "robot"]),  # a Unicode 8 emoji: unknown to FTS5, so a token character
        ("ΣΊΣΥΦΟΣ", ["σίσυφοσ"]),  # Greek keeps its tonos; final sigma folds to σ
        ("Ёлка ЙОД", ["ёлка", "йод"]),  # Cyrillic keeps its marks
        ("Straße", ["straße"]),  # no ß -> ss expansion
        ("İstanbul", ["istanbul"]),
        ("u\u0308ber", ["uber"]),  # decomposed diaeresis is folded away, not a split point
    ],
)
def test_fts5_tokenizes_tricky_text_as_documented(fts: Fts, text: str, expected: list[str]) -> None:
    assert fts.tokens(text) == expected
    assert fts5_tokens(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C++ and C# and F#", ["c++", "and", "c#", "and", "f#"]),  # a "#" after a letter stays
        ("#hashtag @user", ["hashtag", "user"]),  # a word-initial "#" is a separator in the index form
        ("My order #1182", ["my", "order", "1182"]),
        ("日本語", ["日", "本", "語"]),  # CJK: one character apiece
        ("東京2020とiPhone用", ["東", "京", "2020", "と", "iphone", "用"]),
        ("서울에서", ["서", "울", "에", "서"]),
        ("zero\u200bwidth soft\u00adhyphen \ufeffbom", ["zerowidth", "softhyphen", "bom"]),  # Cf characters go
        ("И\u0306ошкар", ["йошкар"]),  # a decomposed Cyrillic letter is composed first
    ],
)
def test_tokenize_reads_the_index_form(fts: Fts, text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected
    assert fts.tokens(index_form(text)) == expected  # what SQLite indexes for the row the store writes


def _codepoint_probe(code_points: range) -> str:
    """Each code point between two letters: separators split, token characters fold in place."""
    return "".join(f"q{chr(cp)}q " for cp in code_points if not 0xD800 <= cp <= 0xDFFF)


def test_tokenize_agrees_with_fts5_on_every_code_point_of_the_bmp_and_smp(fts: Fts) -> None:
    text = _codepoint_probe(range(0x20000))
    assert fts5_tokens(text) == fts.tokens(text)
    assert tokenize(text) == fts.tokens(index_form(text))


def _derive_separators(fts_tokens: list[str], code_points: range) -> list[int]:
    """Read back which code points FTS5 treated as separators from a _codepoint_probe's tokens.

    A separator yields the two tokens "q", "q"; a token character yields one token ("qxq", or
    "qq" when it folds away), so the stream can be walked one code point at a time.
    """
    separators, stream = [], iter(fts_tokens)
    for cp in code_points:
        if 0xD800 <= cp <= 0xDFFF:
            separators.append(cp)  # never sent to SQLite; the module lists them as separators
        elif next(stream) == "q":
            next(stream)
            separators.append(cp)
    return separators


def _format_ranges(code_points: list[int]) -> str:
    ranges: list[list[int]] = []
    for cp in code_points:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return " ".join(f"{a:X}" if a == b else f"{a:X}-{b:X}" for a, b in ranges)


def test_separator_table_matches_fts5(fts: Fts) -> None:
    planes = range(0x20000)
    derived = _derive_separators(fts.tokens(_codepoint_probe(planes)), planes)
    table = [cp for a, b in _parse_ranges(_SEPARATOR_RANGES) for cp in range(a, b + 1) if cp in planes]
    assert table == derived, "regenerate _SEPARATOR_RANGES (planes 0-1):\n" + _format_ranges(derived)


def test_tokenize_agrees_with_fts5_on_the_higher_planes(fts: Fts) -> None:
    # CJK extensions, tags, variation selectors, private use; sampled, the rest is uniform ranges.
    for plane in range(2, 17):
        start = plane * 0x10000
        text = _codepoint_probe(range(start, start + 0x10000, 37)) + _codepoint_probe(
            range(start + 0xFFF0, start + 0x10000)
        )
        assert fts5_tokens(text) == fts.tokens(text), f"plane {plane}"
        assert tokenize(text) == fts.tokens(index_form(text)), f"plane {plane}"
    tags = _codepoint_probe(range(0xE0000, 0xE0200))
    assert fts5_tokens(tags) == fts.tokens(tags)
    assert tokenize(tags) == fts.tokens(index_form(tags))


REALISTIC = [
    "Alice is allergic to peanuts; Bob prefers C# over C++ (since 2019).",
    "Deployed commit a3f9c2e to prod at 14:05 UTC — throughput 3.2 GB/s, p99 = 41ms.",
    "Don't e-mail the U.S. office about the 100% refund ($5,000) until after 2024-05-03.",
    "Meeting w/ José Müller & Zoë Saldaña in São Paulo; naïve café façade, Ærøskøbing, Łódź.",
    "Réunion à l'hôtel: « très bien », dit-elle. Ça coûte 12,50 €.",
    "Москва — столица России. Ёжик в тумане. Йогурт, пожалуйста!",
    "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. ΟΔΥΣΣΕΑΣ ταξίδεψε.",
    "東京は日本の首都です。私はラーメンが好き！ 北京欢迎你。",
    "서울은 대한민국의 수도입니다.",
    "مرحبا بالعالم، أنا أحب القهوة. إِنَّ",
    "שלום עולם, אני אוהב קפה.",
    "नमस्ते दुनिया, मुझे चाय पसंद है।",
    "สวัสดีครับ ผมชอบกาแฟ",
    "Launch day 🚀🎉 — the team 👩‍💻👨🏽‍💻 shipped 🤖 v2.0!! 🥑 toast ❤️",
    "Path: /usr/local/bin/python3.11 --version; URL https://example.com/a?b=c&d=e#frag",
    "email: alice.smith+tag@example.co.uk, phone +1 (555) 010-9999, #general @channel",
    "snake_case camelCase kebab-case SCREAMING_CASE x86_64 IPv6 ::1 0xDEADBEEF 1e-9 ½ ² Ⅳ",
    "‮bidi override‬ and ⁦isolate⁩ text, zero\u200bwidth, soft\u00adhyphen, NBSP\u00a0here",
    "Zalgo: Z̷̢a̸l̵g̶o̴ and decomposed cafe\u0301 and precomposed café",
    "Tab\tseparated\nlines\r\nand\x00nul\x1fcontrols",
]


@pytest.mark.parametrize("text", REALISTIC)
def test_tokenize_agrees_with_fts5_on_realistic_text(fts: Fts, text: str) -> None:
    assert fts5_tokens(text) == fts.tokens(text)
    assert tokenize(text) == fts.tokens(index_form(text))


no_surrogates = st.characters(codec="utf-8")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(no_surrogates, max_size=60))
def test_tokenize_agrees_with_fts5_on_arbitrary_text(fts: Fts, text: str) -> None:
    assert fts5_tokens(text) == fts.tokens(text)
    assert tokenize(text) == fts.tokens(index_form(text))
    assert tokenize(" ".join(tokenize(text))) == tokenize(text)  # a query of the tokens finds them


def test_tokens_are_stable_when_tokenized_again(fts: Fts) -> None:
    # fts_query sends our folded tokens back through FTS5: they must come out unchanged.
    text = _codepoint_probe(range(0x20000))
    tokens = tokenize(text)
    assert tokenize(" ".join(tokens)) == tokens
    assert fts.tokens(" ".join(tokens)) == tokens


def test_tokenize_drops_surrogates_and_nul() -> None:
    assert tokenize("ab\ud800cd\x00ef\udfff") == ["ab", "cd", "ef"]


def test_stopwords_are_folded_single_tokens() -> None:
    assert 130 <= len(STOPWORDS) <= 180
    assert all(tokenize(word) == [word] for word in STOPWORDS)


# --- fts_query: shape ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("C++ compiler", '"c++" OR "compiler"'),
        ("GB/s", '"gb s"'),
        ("don't panic", '"panic"'),  # "don't" is a stop-word phrase
        ("don't", '"don t"'),
        ("What is the capital of France?", '"capital" OR "france"'),
        ("who are you", '"who" OR "are" OR "you"'),  # all stop-words: kept
        ("Peanut peanut PEANUT", '"peanut"'),
        ('say "hello" (twice)', '"say" OR "hello" OR "twice"'),
        ("text:foo", '"text foo"'),
        ("NEAR(a b)", '"near a" OR "b"'),
        ("über Café", '"uber" OR "cafe"'),
        ("", None),
        ("   \t\n ", None),
        ("?!.,;:'\"()[]{}<>/\\|*^-~`", None),
        ("🚀", None),
        ("\x00\ud800", None),
    ],
)
def test_fts_query_builds_quoted_terms(text: str, expected: str | None) -> None:
    assert fts_query(text) == expected


def test_fts_query_and_mode_joins_with_and() -> None:
    assert fts_query("alice peanuts", mode="and") == '"alice" AND "peanuts"'


def test_fts_query_rejects_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        fts_query("x", mode="xor")  # type: ignore[arg-type]


def test_fts_query_uses_caller_stopwords() -> None:
    assert fts_query("the alice", stopwords=frozenset({"alice"})) == '"the"'


def test_fts_query_caps_terms_and_phrase_length() -> None:
    many = " ".join(f"word{i}" for i in range(1000))
    query = fts_query(many)
    assert query is not None
    assert query.count(" OR ") == MAX_QUERY_TERMS - 1
    long_word = "-".join(f"p{i}" for i in range(100))
    phrase = fts_query(long_word)
    assert phrase is not None
    assert len(phrase.strip('"').split()) == MAX_PHRASE_TOKENS


def test_fts_query_caps_stopword_only_queries_too() -> None:
    query = fts_query(" ".join(sorted(STOPWORDS)))
    assert query is not None
    assert query.count(" OR ") == MAX_QUERY_TERMS - 1


# --- fts_query: executes in FTS5 ---------------------------------------------------------------

TRICKY_QUERIES = [
    '"',
    '""',
    '"unbalanced',
    'unbalanced"',
    'a "b c',
    "'single'",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "a AND",
    "OR b",
    "NOT a",
    "a NOT",
    "NEAR(a b, 3)",
    "NEAR/2",
    "alice*",
    "*",
    "^alice",
    "^",
    "text:foo",
    "docs:foo",
    "{text}: foo",
    "-foo",
    "- -",
    "+",
    "++ ##",
    "(",
    ")",
    "((a)",
    "a OR (b AND NOT c)",
    "a:b:c::",
    "col:",
    ":",
    "rowid = 1; DROP TABLE docs; --",
    '\\"escaped\\"',
    "x\x00y",
    "\ud800\udfff lone surrogates",
    "\u202eevil\u202c bidi",
    "e\u0301\u0301\u0301 combining",
    "🚀🚀🚀 🤖",
    "a" * 10_000,
    "a-" * 5_000,
    " ".join(["NEAR(x"] * 2_000),
]


@pytest.mark.parametrize("text", TRICKY_QUERIES, ids=[repr(q[:24]) for q in TRICKY_QUERIES])
@pytest.mark.parametrize("mode", ["or", "and"])
def test_tricky_query_executes_as_fts5_match(fts: Fts, text: str, mode: str) -> None:
    fts.add(1, "alice likes foo and b c")
    expression = fts_query(text, mode=mode)  # type: ignore[arg-type]
    if expression is not None:
        fts.search(expression)  # must not raise


TRICKY_DOCS = {
    "C++": "the compiler for C++ templates",
    "C#": "a C# dotnet service",
    "a3f9c2e": "reverted commit a3f9c2e yesterday",
    "GB/s": "disk throughput of 3 GB/s measured",
    "don't": "I don't eat mushrooms",
    "node.js": "backend written in node.js",
    "e-mail": "send an e-mail to support",
    "U.S.": "moved to the U.S. in spring",
    "100%": "battery at 100% overnight",
    "$5": "lunch cost $5 today",
    "#hashtag": "posted with #hashtag tonight",
    "@user": "mentioned @user in chat",
    "über": "über fast build",
    "naïve": "a naïve estimate",
    "日本語": "日本語 lessons on tuesday",
    "launch": "🚀 launch window opens",
}


def _seed(fts: Fts) -> dict[str, int]:
    rowids = {}
    for rowid, (word, text) in enumerate(TRICKY_DOCS.items(), start=1):
        fts.add(rowid, text)
        rowids[word] = rowid
    # distractors that share parts of the tricky tokens but not the tokens themselves
    for rowid, text in enumerate(
        ["C is a language", "hash tag culture", "username reset", "mailroom", "gb ram", "js fatigue"],
        start=100,
    ):
        fts.add(rowid, text)
    return rowids


@pytest.mark.parametrize("word", list(TRICKY_DOCS))
def test_tricky_token_finds_its_document_first(fts: Fts, word: str) -> None:
    rowids = _seed(fts)
    expression = fts_query(word)
    assert expression is not None
    hits = fts.search(expression)
    assert hits, f"{word!r} -> {expression} found nothing"
    assert hits[0] == rowids[word]


@pytest.mark.parametrize(("query", "word"), [("uber", "über"), ("NAIVE", "naïve"), ("c++", "C++")])
def test_query_folds_like_the_index(fts: Fts, query: str, word: str) -> None:
    rowids = _seed(fts)
    expression = fts_query(query)
    assert expression is not None
    assert fts.search(expression)[0] == rowids[word]


def test_phrase_requires_the_parts_together(fts: Fts) -> None:
    fts.add(1, "send an e-mail")
    fts.add(2, "e is a vowel; mail is post")
    expression = fts_query("e-mail")
    assert expression is not None
    assert fts.search(expression) == [1]


def test_a_word_initial_hash_is_a_separator_and_a_trailing_one_is_not(fts: Fts) -> None:
    # The index form blanks a "#" that starts a word (an order number "#1182" is found by "1182"),
    # while "C#" keeps its "#" as "C++" keeps "++" (tokenchars '+#').
    fts.add(1, "posted with #hashtag")
    fts.add(2, "My order #1182 never arrived")
    fts.add(3, "a C# service")
    fts.add(4, "a C service")
    for query, found in [("hashtag", [1]), ("#hashtag", [1]), ("1182", [2]), ("order #1182", [2]), ("C#", [3])]:
        expression = fts_query(query)
        assert expression is not None
        assert fts.search(expression) == found, query


query_chars = st.one_of(
    st.characters(codec=None, exclude_categories=()),  # everything, lone surrogates included
    st.sampled_from(list("\"'*^:()-+#{}[]\\ \t\n\x00")),
)
query_fragments = st.one_of(
    st.text(query_chars, max_size=12),
    st.sampled_from(["AND", "OR", "NOT", "NEAR", "NEAR(", "text:", "docs:", "*", '"', "^", "-", "🚀", "🤖"]),
)


@settings(max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.lists(query_fragments, max_size=12).map(" ".join),
    mode=st.sampled_from(["or", "and"]),
)
def test_fts_query_never_raises_and_always_executes(fts: Fts, text: str, mode: str) -> None:
    if not fts.search('"alice"'):
        fts.add(1, "alice likes foo and near text docs")
    expression = fts_query(text, mode=mode)  # type: ignore[arg-type]
    if expression is None:
        assert tokenize(text) == []
    else:
        fts.search(expression)
        assert len(expression.split('" ')) <= MAX_QUERY_TERMS
