"""The Lark grammar of Zyla's Julia syntax (`julia.lark`), and the function that builds its
LALR tables.

`julia.lark` is an LALR(1) grammar whose terminals all come from the hand-written,
parser-state-aware lexer `grammar.lexer.JuliaLexer`. The built parse tables are cached on
disk by Lark (`cache=True`: a file in the system temp directory keyed by a hash of the
grammar, the options and the Lark version), so only the first start pays for the table
construction.
"""

from __future__ import annotations

from pathlib import Path

from lark import Lark

from grammar.lexer import JuliaLexer

GRAMMAR_PATH = Path(__file__).with_name("julia.lark")

#: The grammar's start rules: a whole file, and the `$( ... )` of a string interpolation.
START_RULES = ["program", "interp"]


def grammar_text() -> str:
    """Return the grammar source."""
    return GRAMMAR_PATH.read_text(encoding="utf-8")


def load_parser(
    transformer: object | None = None, *, cache: bool = True, strict: bool = False
) -> Lark:
    """Build (or load from the cache) the LALR parser with the Julia lexer.

    With `transformer` (an object with one method per rule, see `grammar.parser`), rules are
    transformed inline while parsing and `parse` returns AST nodes; node positions then come
    from the tokens. Without it, `parse` returns a Lark parse tree with positions propagated
    (for debugging the grammar). `strict=True` makes any shift/reduce conflict an error,
    which the tests use to keep the grammar conflict free.
    """
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer=JuliaLexer,
        start=START_RULES,
        transformer=transformer,
        propagate_positions=transformer is None,
        maybe_placeholders=False,
        cache=cache and not strict,
        strict=strict,
    )
