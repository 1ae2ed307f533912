"""Zyla's lexer: a hand-written, parser-state-aware tokenizer for Julia syntax.

Julia's syntax is context dependent in ways a context-free grammar cannot express: a space
decides between a call and a grouping paren (`f(x)` vs `f (x)`) or between one and two
matrix elements (`[a - b]` vs `[a -b]`), a newline ends a statement only when the
statement is complete, `'` is an adjoint after a value and a character literal elsewhere,
`end` inside `x[...]` is the last index. This lexer resolves each of those cases into a
distinct token (see the table at the top of `grammar/julia.lark`), so the LALR grammar
stays small and conflict free.

It keeps a stack of *frames*, one per open bracket, block keyword and space-separated
macro call, and it sees the live LALR parser state: Lark calls `JuliaLexer.lex` with it
(`__future_interface__ = 2`), and because tokens are produced lazily, every token the
lexer yielded has been fed to the parser by the time it produces the next one. Where a
decision needs the parser (is a newline a statement end here? is `for` a loop or a
comprehension?), it asks whether the parser can accept a given token now: the parser
state's own `accepts` method if it has one (the fast driver in `grammar.parser`), else
`_accepts` on Lark's `ParserState`. Both simulate the reductions the token would cause on
a virtual copy of the stack top and report whether it would then be shifted; that answer
is exact, unlike a lookup in the LALR table, which over-approximates because of LALR's
merged lookaheads and default reductions.

The lexer is O(n): each character is scanned once, and each parser query costs a few
table lookups. String interpolations `$(expr)` are parsed recursively, in place, by a
nested parse of the same text (`LexInput.subparse`). For speed, the main loop recognises
the commonest tokens (plain names and numbers, commas) with one regular expression and
emits them directly wherever no context decision applies to them (`_Run.tokens`); the
tests check that this shortcut yields the very tokens the general methods would.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lark import Token
from lark.lexer import Lexer, LexerState
from lark.parsers.lalr_analysis import Shift
from lark.utils import TextSlice

from grammar.ast import Ident, Literal, MacroCall, Node, Span
from grammar.errors import SourceFile, ZylaError

# ---- errors --------------------------------------------------------------------------


class ZylaParseError(ZylaError):
    """A syntax error (kind "ParseError"). `incomplete` is true when the text is a valid
    prefix that ran out (an unclosed block, bracket, string or comment, or an expression
    cut off at the end), which the REPL uses to ask for another line."""

    def __init__(
        self,
        message: str,
        span: Span | None,
        source: SourceFile | None,
        *,
        incomplete: bool = False,
        hint: str | None = None,
    ) -> None:
        super().__init__("ParseError", message, span, source, hint)
        self.incomplete = incomplete


# ---- token types (the grammar's terminals) --------------------------------------------

NAME = "NAME"
INT, FLOAT, FLOAT32 = "INT", "FLOAT", "FLOAT32"
STRING, CHAR, SYMBOL = "STRING", "CHAR", "SYMBOL"
MACRONAME, MACRONAME_PAREN, MACRO_END = "MACRONAME", "MACRONAME_PAREN", "MACRO_END"
NL = "_NL"
COMMA, PSEMI, ROWSEP, HSEP, JUXT = "COMMA", "PSEMI", "ROWSEP", "HSEP", "JUXT"
#: `;;` inside `[...]`: concatenation along the second dimension (`[1;2;;3;4]`)
DSEMI = "DSEMI"
#: a juxtaposition right after the number exponent of `^`: `2^3x` is `2^(3x)`
POWJUXT = "POWJUXT"
LPAREN, CALL_LPAREN, DOT_LPAREN, RPAREN = "LPAREN", "CALL_LPAREN", "DOT_LPAREN", "RPAREN"
LBRACK, INDEX_LBRACK, RBRACK = "LBRACK", "INDEX_LBRACK", "RBRACK"
LBRACE, CURLY_LBRACE, RBRACE = "LBRACE", "CURLY_LBRACE", "RBRACE"
DOT, ELLIPSIS, ADJOINT, ENDMARKER = "DOT", "ELLIPSIS", "ADJOINT", "ENDMARKER"
BARECOLON, COLON, TERNCOLON, QUESTION = "BARECOLON", "COLON", "TERNCOLON", "QUESTION"
ASSIGN, OPASSIGN, DOTASSIGN = "ASSIGN", "OPASSIGN", "DOTASSIGN"
PAIR, ARROW, OROR, ANDAND = "PAIR", "ARROW", "OROR", "ANDAND"
ARROWOP = "ARROWOP"  # `→`, `-->`, ...: binary operators between `&&` and comparisons
COMPOP, SUBTYPE, ELEMOF, IN, ISA, PIPE = "COMPOP", "SUBTYPE", "ELEMOF", "IN", "ISA", "PIPE"
PLUSMINUS, ADDOP, MULOP, RATIONAL = "PLUSMINUS", "ADDOP", "MULOP", "RATIONAL"
SHIFTOP, POW, DCOLON, NOT, SQRT = "SHIFTOP", "POW", "DCOLON", "NOT", "SQRT"
DOLLAR = "DOLLAR"
#: (not a token: the lexer's previous-token type after the `end` of a `do` block)
DO_END = "DO_END"
#: `quote ... end`, `macro m(x) ... end`, and the `:` of an expression quote `:(x + 1)`
QUOTE, MACRODEF, QUOTECOLON = "QUOTE", "MACRODEF", "QUOTECOLON"
FUNCTION, END, IF, ELSEIF, ELSE = "FUNCTION", "END", "IF", "ELSEIF", "ELSE"
FOR, COMPFOR, COMPIF, WHILE = "FOR", "COMPFOR", "COMPIF", "WHILE"
OUTER = "OUTER"  # `for outer i = ...`: the loop sets the enclosing scope's i
BREAK, CONTINUE, RETURN, BEGIN, LET = "BREAK", "CONTINUE", "RETURN", "BEGIN", "LET"
TRY, CATCH, CATCHVAR, FINALLY = "TRY", "CATCH", "CATCHVAR", "FINALLY"
STRUCT, MUTABLE_STRUCT, ABSTRACT_TYPE = "STRUCT", "MUTABLE_STRUCT", "ABSTRACT_TYPE"
MODULE, USING, IMPORT, CONST = "MODULE", "USING", "IMPORT", "CONST"
GLOBAL, LOCAL, DO, WHERE = "GLOBAL", "LOCAL", "DO", "WHERE"
#: `<:` right after `where T`: the variable's bound (`A where T <: Real`), not a comparison
WHERE_SUBTYPE = "WHERE_SUBTYPE"
EXPORT = "EXPORT"
#: Julia keywords Zyla does not implement; the parser rejects them by name.
UNSUPPORTED = "UNSUPPORTED"

#: Keywords that open a block closed by `end`.
_BLOCK_KEYWORDS = {
    "function": FUNCTION,
    "if": IF,
    "for": FOR,
    "while": WHILE,
    "begin": BEGIN,
    "let": LET,
    "try": TRY,
    "struct": STRUCT,
    "module": MODULE,
    "do": DO,
    "quote": QUOTE,
    "macro": MACRODEF,
}
#: Keywords in the middle of a block.
_MID_KEYWORDS = {"elseif": ELSEIF, "else": ELSE, "catch": CATCH, "finally": FINALLY}
_PLAIN_KEYWORDS = {
    "return": RETURN,
    "break": BREAK,
    "continue": CONTINUE,
    "const": CONST,
    "global": GLOBAL,
    "local": LOCAL,
    "using": USING,
    "import": IMPORT,
    "in": IN,
    "isa": ISA,
    "where": WHERE,
    "baremodule": UNSUPPORTED,
    "export": EXPORT,
}
KEYWORDS = frozenset(_BLOCK_KEYWORDS) | frozenset(_MID_KEYWORDS) | frozenset(_PLAIN_KEYWORDS)
KEYWORDS |= {"end"}
#: Words the main loop leaves to `_Run.word`.
_SLOW_WORDS = KEYWORDS | {"mutable", "abstract", "outer"}

# ---- operators ------------------------------------------------------------------------

_OPERATOR_CLASSES: dict[str, tuple[str, ...]] = {
    ASSIGN: ("=",),
    OPASSIGN: ("+=", "-=", "*=", "/=", "//=", "^=", "÷=", "%=", "\\=", "|=", "&=", "<<=", ">>="),
    DOTASSIGN: (".=",),
    PAIR: ("=>",),
    ARROW: ("->",),
    OROR: ("||",),
    ANDAND: ("&&",),
    QUESTION: ("?",),
    ARROWOP: ("-->", *"→←↔↚↛↠↣↦↮⇎⇏⇒⇔⇴⇶⇷⇸⇹⇺⇻⇼⇽⇾⇿⟵⟶⟷⟹⟺⟻⟼⟽⟾⟿⤀⤁⤂⤃⤄⤅⤆⤇⤌⤍⤎⤏⤐⤑⤔⤕⤖⤗⤘⤝⤞⤟⤠"
                       "⥄⥅⥆⥇⥈⥊⥋⥎⥐⥒⥓⥖⥗⥚⥛⥞⥟⥢⥤⥦⥧⥨⥩⥪⥫⥬⥭⥰⧴⬱⬰⬲⬳⬴⬵⬶⬷⬸⬹⬺⬻⬼⬽⬾⬿⭀⭁⭂⭃⭄⭇⭈⭉⭊⭋⭌￩￫"),
    COMPOP: ("==", "!=", "===", "!==", "<", "<=", ">", ">=", ">:",
             *"≤≥≠≈≉≡≢∉⊆⊂⊇⊃∋∌⊈⊄⊊∝∊∍∥∦∷∺∻∽∾≁≃≄≅≆≇≊≋≌≍≎≐≑≒≓≔≕≖≗≘≙≚≛≜≝≞≟≣≦≧≨≩≪≫≬≭≮≯≰≱"
             "≲≳≴≵≶≷≸≹≺≻≼≽≾≿⊀⊁⊅⊉⊋⊏⊐⊑⊒⊜⊩⊬⊮⊰⊱⊲⊳⊴⊵⊶⊷⋍⋐⋑⋕⋖⋗⋘⋙⋚⋛⋜⋝⋞⋟⋠⋡⋢⋣⋤⋥⋦⋧⋨⋩⋪⋫⋬⋭⋲⋳"
             "⋴⋵⋶⋷⋸⋹⋺⋻⋼⋽⋾⋿⟈⟉⟒⦷⧀⧁⧡⧣⧤⧥⩦⩧⩪⩫⩬⩭⩮⩯⩰⩱⩲⩳⩴⩵⩶⩷⩸⩹⩺⩻⩼⩽⩾⩿⪀⪁⪂⪃⪄⪅⪆⪇⪈⪉⪊⪋⪌⪍⪎⪏"
             "⪐⪑⪒⪓⪔⪕⪖⪗⪘⪙⪚⪛⪜⪝⪞⪟⪠⪡⪢⪣⪤⪥⪦⪧⪨⪩⪪⪫⪬⪭⪮⪯⪰⪱⪲⪳⪴⪵⪶⪷⪸⪹⪺⪻⪼⪽⪾⪿⫀⫁⫂⫃⫄⫅⫆⫇⫈⫉⫊⫋"
             "⫌⫍⫎⫏⫐⫑⫒⫓⫔⫕⫖⫗⫘⫙⫷⫸⫹⫺⊢⊣"),
    SUBTYPE: ("<:",),
    ELEMOF: ("∈",),
    PIPE: ("|>",),
    PLUSMINUS: ("+", "-"),
    ADDOP: ("|", *"⊻⊽∪⊕⊖⊞⊟∨⊔±∓∔∸≂≏⊎⋎⋓⧺⧻⨈⨢⨣⨤⨥⨦⨧⨨⨩⨪⨫⨬⨭⨮⨹⨺⩁⩂⩅⩊⩌⩏⩐⩒⩔⩖⩗⩛⩝⩡⩢⩣"),
    MULOP: ("*", "/", "%", "\\", "&", *"÷⋅∘×∩⊗⊙⊘⊛⊠⊡∧⊓⋆∗⊼⊚∙∤⅋≀⋄⋇⋉⋊⋋⋌⋏⋒⟑⦸⦼⦾⦿⧶⧷⨇⨰⨱⨲⨳⨴⨵⨶⨷⨸"
            "⨻⨼⨽⩀⩃⩄⩋⩍⩎⩑⩓⩕⩘⩚⩜⩞⩟⩠⫛⊍"),
    RATIONAL: ("//",),
    SHIFTOP: ("<<", ">>", ">>>"),
    POW: ("^", *"↑↓⇵⟰⟱⤈⤉⤊⤋⤒⤓⥉⥌⥍⥏⥑⥔⥕⥘⥙⥜⥝⥠⥡⥣⥥⥮⥯￪￬"),
    DCOLON: ("::",),
    NOT: ("!", "~"),
    SQRT: ("√", "∛", "∜"),
    ELLIPSIS: ("...",),
}
#: Operator classes that also exist in a dotted (broadcasting) form `.op`.
_DOTTABLE = (ARROWOP, COMPOP, ELEMOF, PIPE, PLUSMINUS, ADDOP, MULOP, RATIONAL, SHIFTOP, POW, NOT,
             SQRT, PAIR)


def _operator_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for ttype, ops in _OPERATOR_CLASSES.items():
        for op in ops:
            table[op] = ttype
    for ttype in _DOTTABLE:
        for op in _OPERATOR_CLASSES[ttype]:
            table["." + op] = ttype
    for op in _OPERATOR_CLASSES[OPASSIGN]:
        table["." + op] = OPASSIGN
    return table


OPERATORS: dict[str, str] = _operator_table()
_OPERATOR_RE = re.compile(  # the longest operator: longer ones first, then one character
    "|".join(re.escape(op) for op in sorted((op for op in OPERATORS if len(op) > 1),
                                            key=len, reverse=True))
    + "|[" + "".join(re.escape(op) for op in sorted(op for op in OPERATORS if len(op) == 1)) + "]"
)
_OPERATOR_START = frozenset(op[0] for op in OPERATORS) - {".", ":"}
#: Operators that may be used as prefix (unary) operators.
_PREFIX_TYPES = frozenset({PLUSMINUS, NOT, SQRT})
#: Operators that can stand for their function (`map(+, xs)`, `reduce(*, v)`).
_VALUE_OPERATOR_TYPES = frozenset(
    {PLUSMINUS, ADDOP, MULOP, RATIONAL, SHIFTOP, POW, COMPOP, ELEMOF, PIPE, NOT, SQRT, SUBTYPE,
     ARROWOP}
)

# ---- character classes ----------------------------------------------------------------

_ID_START = r"[^\W\d]|[∂∇℘]"
#: A name: a start character, then continuation characters and `!`s not followed by `=`
#: (written so that the common case, no `!`, is one run of a character class).
_ID_CONT_CHAR = r"[\w′″‴∂∇℘\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
_ID_REST = rf"{_ID_CONT_CHAR}*(?:!(?!=){_ID_CONT_CHAR}*)*"
_IDENT_RE = re.compile(rf"(?:{_ID_START}){_ID_REST}")
#: Characters Julia treats as the same identifier character (after NFC): micro sign and
#: Latin epsilon are Greek mu and epsilon, Planck's ℏ is ħ.
_NAME_CHARMAP = str.maketrans({"\u00b5": "\u03bc", "\u025b": "\u03b5", "\u210f": "\u0127"})


def canonical_name(word: str) -> str:
    """An identifier as Julia compares it: NFC-normalised, with `_NAME_CHARMAP` applied
    (`e` + combining acute and `é` are one name)."""
    if word.isascii():
        return word
    return unicodedata.normalize("NFC", word).translate(_NAME_CHARMAP)
_ID_START_RE = re.compile(_ID_START)
#: the start of a line that imports names (`import Base.^` names an operator)
_IMPORT_LINE_RE = re.compile(r"\s*(?:import|using)\s+[^\n;]*\w$")
#: `:(=)`, `:(->)`, ...: the symbols of operators that are syntax, not functions
_QUOTED_SYNTAX_RE = re.compile(r":\((=|:=|[-+*/\\^%&|÷⊻]=|\.=|::|->|&&|\|\||\.\.\.|\.|\$)\)")
_QUALIFIED_MACRO_RE = re.compile(rf"(?:(?:{_IDENT_RE.pattern})\.)+@((?:{_IDENT_RE.pattern})|\.)")
#: `@name`, `@.`, and a qualified name `@Base.kwdef` (the same macro as `Base.@kwdef`)
_MACRO_RE = re.compile(rf"@((?:(?:{_IDENT_RE.pattern})\.)*(?:{_IDENT_RE.pattern})|\.)")
_NUMBER_RE = re.compile(
    r"""
      0x (?: [0-9a-fA-F]+(?:_[0-9a-fA-F]+)* (?:\.[0-9a-fA-F]*)? | \.[0-9a-fA-F]+ )
        [pP][+-]?\d+
    | 0x[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*
    | 0b[01]+(?:_[01]+)*
    | 0o[0-7]+(?:_[0-7]+)*
    | (?: \d+(?:_\d+)* (?: \.\d+(?:_\d+)* | \.(?=[eEf][+-]?\d)
                       | \.(?![.\w*/+\-^\\÷%=<>!&|']) )?
        | \.\d+(?:_\d+)* )
      (?:[eEf][+-]?\d+)?
    """,
    re.VERBOSE,
)
_SPACES_RE = re.compile(r"[ \t\r]+")
#: Spaces, newlines and line comments (not block comments `#= ... =#`).
_BLANK_RE = re.compile(r"(?:[ \t\r\n]+|#(?!=)[^\n]*)*")
#: One step of the main loop: spaces (group 1), then maybe one of the commonest tokens:
#: an all-ASCII name, a plain decimal integer or float, or a comma; `lastgroup` says which
#: (None: only spaces, or none of these). A name or number followed by a character that
#: could continue it (`push!`, `x̂`, `σ²`, `1e3`, `1.`, `2x`) is left to the general
#: methods. ASCII-only character classes keep the regex engine off the Unicode database,
#: and the possessive quantifiers (`*+`, `++`) keep it from matching a shorter prefix.
_FAST_RE = re.compile(
    r"""([ \t\r]*)(?:
      (?P<name>[A-Za-z_][A-Za-z0-9_]*+)(?![^\x00-\x7f]|!(?!=)|")
    | (?P<int>[0-9]++)(?![0-9A-Za-z_.]|[^\x00-\x7f])
    | (?P<float>[0-9]++\.[0-9]++)(?![0-9A-Za-z_.]|[^\x00-\x7f])
    | (?P<comma>,)
    )?""",
    re.VERBOSE,
)
_STRING_CHUNK_RE = re.compile(r'[^"\\$\n]+')
_RAW_CHUNK_RE = re.compile(r'[^"\\\n]+')
_BACKSLASHES_RE = re.compile(r"\\+")
_BLOCK_COMMENT_RE = re.compile(r"#=|=#|\n")
_MUTABLE_RE = re.compile(r"[ \t]+struct\b")
_ABSTRACT_RE = re.compile(r"[ \t]+type\b")
#: `outer` before a loop variable (not the variable `outer` itself: `for outer in xs`)
_OUTER_RE = re.compile(r"[ \t]+(?!in\b)[^\W\d]")

_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "$": "$",
    "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b",
}
_HEX_ESCAPE_DIGITS = {"x": 2, "u": 4, "U": 8}

# ---- frames ---------------------------------------------------------------------------

TOP, BLOCK, MACRO, INTERP = "top", "block", "macro", "interp"
PAREN, CALL, INDEX, VECT, CURLY, BRACE = "paren", "call", "index", "vect", "curly", "brace"
_BRACKETS = frozenset({PAREN, CALL, INDEX, VECT, CURLY, BRACE})
_CLOSER = {PAREN: ")", CALL: ")", INDEX: "]", VECT: "]", CURLY: "}", BRACE: "}"}
_CLOSE_TYPE = {")": RPAREN, "]": RBRACK, "}": RBRACE}
#: Frames in which a space separates elements (`[a b]`, `@m a b`).
_SPACE_SENSITIVE = frozenset({INDEX, VECT, MACRO})


class Frame:
    """An open construct: a bracket, a block keyword, a macro call or the whole input.
    `opener` is its source text ("(", "function", "@test"); `comma` records whether a
    comma was seen directly inside a `[...]`, after which newlines are plain spaces;
    `header` is true while a block's header (`if cond`, `for i in xs`, `function f(x)`)
    has not been ended by a separator."""

    __slots__ = ("kind", "opener", "line", "col", "comma", "header")

    def __init__(self, kind: str, opener: str, line: int, col: int) -> None:
        self.kind = kind
        self.opener = opener
        self.line = line
        self.col = col
        self.comma = False
        self.header = False

    def __repr__(self) -> str:
        return f"Frame({self.kind}, {self.opener!r}, {self.line}:{self.col})"


# ---- tokens that end a value -----------------------------------------------------------

_NUMBERS = frozenset({INT, FLOAT, FLOAT32})
#: After these (with no space), `(` is a call and `.(` a broadcast call.
_CALLABLE_END = frozenset({NAME, RPAREN, RBRACK, RBRACE, ADJOINT, MACRONAME_PAREN, STRING})
#: After these (with no space), `[` indexes.
_INDEXABLE_END = frozenset({NAME, RPAREN, RBRACK, RBRACE, ADJOINT, STRING, ENDMARKER, DO_END})
#: After these (with no space), `'` is the adjoint.
_ADJOINT_AFTER = frozenset({NAME, RPAREN, RBRACK, RBRACE, ADJOINT, ENDMARKER}) | _NUMBERS
#: After these (with no space), a name is multiplied by juxtaposition (`2x`, `(a)b`, `x'y`,
#: `[1, 2]pi`).
_JUXT_LEFT = frozenset({RPAREN, RBRACK, ADJOINT}) | _NUMBERS
#: After these (with no space), `.name` is a field access.
_FIELD_BASE = frozenset({NAME, RPAREN, RBRACK, RBRACE})
#: Block keywords that start a new macro argument after a space (`@testset "a" begin`).
_MACRO_ARG_KEYWORDS = frozenset({FUNCTION, IF, FOR, WHILE, BEGIN, LET, TRY, STRUCT, QUOTE})
#: Block keywords whose header may be followed by the body on the same line.
_HEADER_KEYWORDS = frozenset({FUNCTION, IF, FOR, WHILE, DO, MACRODEF})
#: Tokens that can end a complete expression (a block header).
_OPERAND_END = frozenset({NAME, STRING, CHAR, SYMBOL, RPAREN, RBRACK, RBRACE, ADJOINT,
                          ENDMARKER, END, DO_END, BREAK, CONTINUE}) | _NUMBERS
#: Words that continue an expression rather than start one.
_INFIX_WORDS = frozenset({"in", "isa", "where", "do"})
#: Block keywords that start a new element after a space inside `[...]`.
_ELEMENT_KEYWORDS = frozenset({FUNCTION, BEGIN, LET, TRY, QUOTE})


# ---- the parse job --------------------------------------------------------------------


@dataclass
class LexInput:
    """The input of one parse (what `Lark.parse` or the driver in `grammar.parser` gives the
    lexer as its "text"): the text and where to start. A `$(...)` interpolation
    is parsed as a nested job on the same text (`interp=True`) starting at its `(`; it
    ends at the matching `)`, and writes back where it stopped (`pos`, `line`,
    `line_start`). `subparse` parses such a nested job; `frames` is the lexer's frame
    stack, left as it was when lexing stopped (for error messages)."""

    text: str
    filename: str = "<input>"
    pos: int = 0
    line: int = 1
    line_start: int = 0
    interp: bool = False
    subparse: Callable[[LexInput], Node] | None = None
    frames: list[Frame] = field(default_factory=list)

    @property
    def source(self) -> SourceFile:
        return SourceFile(self.filename, self.text)


# ---- asking the parser ----------------------------------------------------------------


def _accepts(states: dict[Any, dict[str, tuple]], stack: list[Any], ttype: str) -> bool:
    """Whether the LALR parser with state stack `stack` can shift a `ttype` token next.

    Simulates the reductions the parser would make on that lookahead, on a virtual copy
    of the top of the stack (the real stack is not modified), until it shifts (True) or
    finds no action (False)."""
    depth = len(stack)
    pushed: list[Any] = []
    state = stack[-1]
    while True:
        action = states[state].get(ttype)
        if action is None:
            return False
        if action[0] is Shift:
            return True
        rule = action[1]
        size = len(rule.expansion)
        if size:
            if size <= len(pushed):
                del pushed[-size:]
            else:
                depth -= size - len(pushed)
                pushed.clear()
        below = pushed[-1] if pushed else stack[depth - 1]
        state = states[below][rule.origin.name][1]
        pushed.append(state)


# ---- the lexer ------------------------------------------------------------------------


class JuliaLexer(Lexer):
    """The Lark custom lexer (interface 2: `lex` receives the live parser state)."""

    __future_interface__ = 2

    def __init__(self, lexer_conf: Any) -> None:
        self.lexer_conf = lexer_conf

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        """Tokenize `lexer_state.text`: a `LexInput`, or plain text given to `Lark.parse`."""
        job = lexer_state.text
        if isinstance(job, TextSlice):
            job = LexInput(job.text[job.start : job.end])
        elif isinstance(job, str):
            job = LexInput(job)
        return _Run(job, parser_state).tokens()


_new_str = str.__new__


class JlToken(Token):
    """A Lark token with a direct constructor (the lexer makes one per token; its hot
    paths inline this constructor: `_new_str(JlToken, value)`, then all eight slots)."""

    __slots__ = ()

    def __new__(
        cls, type: str, value: Any, start_pos: int, line: int, column: int,
        end_line: int, end_column: int, end_pos: int,
    ) -> JlToken:
        inst = str.__new__(cls, value)
        inst.type = type
        inst.value = value
        inst.start_pos = start_pos
        inst.line = line
        inst.column = column
        inst.end_line = end_line
        inst.end_column = end_column
        inst.end_pos = end_pos
        return inst


#: What a scanning method produces: one token, or several (a sequence, or a generator
#: when a later token's type depends on the parser having consumed the earlier ones).
Emitted = JlToken | tuple[JlToken, ...] | list[JlToken] | Iterator[JlToken]


class _Run:
    """The state of one lexing pass over a `LexInput`."""

    def __init__(self, job: LexInput, parser_state: Any) -> None:
        self.job = job
        self.text = job.text
        self.n = len(job.text)
        self.pos = job.pos
        self.line = job.line
        self.line_start = job.line_start
        if job.pos == 0 and job.text.startswith("\ufeff"):  # a byte order mark
            self.pos = self.line_start = 1
        # `accepts(ttype)`: can the parser shift a `ttype` token now? A fast driver passes
        # its own; for Lark's ParserState, simulate on its live stack.
        accepts = getattr(parser_state, "accepts", None)
        if accepts is None:
            states = parser_state.parse_conf.states
            stack = parser_state.state_stack  # the live stack, updated as tokens are fed

            def accepts(ttype: str) -> bool:
                return _accepts(states, stack, ttype)

        self.accepts: Callable[[str], bool] = accepts
        self.frames: list[Frame] = [Frame(INTERP if job.interp else TOP, "", job.line, 1)]
        job.frames = self.frames
        self.prev_type: str | None = None  # the last real (not zero-width) token
        self.prev_prev_type: str | None = None  # the one before it
        self.prev_end = -1
        self.prev_line = 0
        self.done = False

    # -- helpers --------------------------------------------------------------------

    def col(self, pos: int) -> int:
        return pos - self.line_start + 1

    def span(self, pos: int) -> Span:
        return Span(self.line, pos - self.line_start + 1)

    def error(self, message: str, span: Span, *, incomplete: bool = False,
              hint: str | None = None) -> ZylaParseError:
        return ZylaParseError(message, span, self.job.source, incomplete=incomplete, hint=hint)

    def token(self, ttype: str, value: Any, start: int, end: int) -> JlToken:
        """A real token on the current line; it becomes the previous token."""
        col = start - self.line_start + 1
        line = self.line
        self.prev_prev_type = self.prev_type
        self.prev_type = ttype
        self.prev_end = end
        self.prev_line = line
        self.pos = end
        tok = _new_str(JlToken, value)  # as JlToken(...), without its Python-level call
        tok.type = ttype
        tok.value = value
        tok.start_pos = start
        tok.line = line
        tok.column = col
        tok.end_line = line
        tok.end_column = col + end - start
        tok.end_pos = end
        return tok

    def marker(self, ttype: str, pos: int) -> JlToken:
        """A zero-width token at `pos`; it does not change the previous token."""
        col = pos - self.line_start + 1
        return JlToken(ttype, "", pos, self.line, col, self.line, col, pos)

    def push(self, kind: str, opener: str, pos: int) -> None:
        self.frames.append(Frame(kind, opener, self.line, pos - self.line_start + 1))

    def operand_marker(self, pos: int) -> JlToken | None:
        """The marker that may precede a token starting an operand at `pos`: a
        juxtaposition `*` right after a number, `)` or `'`, or an element separator after
        a space in a space-sensitive frame (`[a b]`, `@m a b`)."""
        if self.prev_end == pos:
            if (self.prev_type in _NUMBERS and self.prev_prev_type == POW
                    and self.accepts(POWJUXT)):
                return self.marker(POWJUXT, pos)
            if self.prev_type in _JUXT_LEFT and self.accepts(JUXT):
                return self.marker(JUXT, pos)
        elif (self.frames[-1].kind in _SPACE_SENSITIVE and self.prev_type is not None
                and self.prev_type != COMMA):
            # (after a comma the expression goes on: `@show a, b` shows the tuple)
            if self.accepts(HSEP):
                return self.marker(HSEP, pos)
        return None

    def operand(self, ttype: str, value: Any, start: int, end: int) -> Emitted:
        """An operand token, preceded by its marker if one is due."""
        marker = self.operand_marker(start)
        tok = self.token(ttype, value, start, end)
        return tok if marker is None else (marker, tok)

    def close_macros(self, pos: int, *, inside_brackets_only: bool = False) -> list[JlToken]:
        """End the space-separated macro calls open at the top of the frame stack."""
        frames = self.frames
        out: list[JlToken] = []
        while frames[-1].kind == MACRO:
            if inside_brackets_only and frames[-2].kind not in _BRACKETS:
                break
            frames.pop()
            out.append(self.marker(MACRO_END, pos))
        return out

    # -- the main loop ----------------------------------------------------------------

    def tokens(self) -> Iterator[Token]:
        """Yield the tokens of the job; stop at its end (or at the `)` of an interpolation).

        Each step matches `_FAST_RE` at the current position: it skips spaces and
        recognises the commonest tokens (a plain name, a plain number, a comma). Where
        no context decides anything for them (no block header pending, no juxtaposition
        or space-separated elements possible, not a keyword), they are emitted right
        here; everything else goes through the methods below, which decide the same
        way for these tokens."""
        text = self.text
        n = self.n
        frames = self.frames
        single = JlToken
        fast = _FAST_RE.match
        new_str = str.__new__
        slow_words = _SLOW_WORDS
        space_sensitive = _SPACE_SENSITIVE
        juxt_left = _JUXT_LEFT
        qualified_macro = _QUALIFIED_MACRO_RE.match
        operand_end = _OPERAND_END
        dispatch = _DISPATCH
        while not self.done:
            m = fast(text, self.pos)
            pos = m.end(1)
            kind = m.lastgroup
            frame = frames[-1]
            if kind is not None:
                end = m.end()
                if kind == "comma":
                    # (`header_end` never separates before a comma)
                    if frame.kind == MACRO:
                        ttype = None
                    else:
                        word = ","
                        ttype = COMMA
                        if frame.kind == VECT or frame.kind == INDEX:
                            frame.comma = True
                elif (frame.header and self.prev_line == self.line and self.prev_end != pos
                        and self.prev_type in operand_end):
                    ttype = None  # maybe the end of a one-line block's header: `header_end`
                elif (frame.kind in space_sensitive if self.prev_end != pos
                        else self.prev_type in juxt_left):
                    ttype = None  # maybe a marker first: `operand_marker`
                elif kind == "name":
                    word = m.group(kind)
                    if (word not in slow_words and self.prev_type != CATCH
                            and (end == n or text[end] != "."
                                 or qualified_macro(text, pos) is None)):
                        ttype = NAME
                    else:
                        ttype = None
                else:
                    word = m.group(kind)
                    ttype = INT if kind == "int" else FLOAT
                if ttype is not None:
                    line = self.line
                    col = pos - self.line_start + 1
                    self.prev_prev_type = self.prev_type
                    self.prev_type = ttype
                    self.prev_end = end
                    self.prev_line = line
                    self.pos = end
                    tok = new_str(single, word)
                    tok.type = ttype
                    tok.value = word
                    tok.start_pos = pos
                    tok.line = line
                    tok.column = col
                    tok.end_line = line
                    tok.end_column = col + end - pos
                    tok.end_pos = end
                    yield tok
                    continue
            self.pos = pos
            if pos >= n:
                yield from self.end_of_input()
                break
            c = text[pos]
            if frame.header and c != "\n" and c != "#":
                sep = self.header_end(pos)
                if sep is not None:
                    yield sep
            handler = dispatch.get(c)
            if handler is not None:
                out = handler(self, pos)
                if out is None:
                    continue
            elif c.isalpha() or c in "∂∇℘":
                out = self.word(pos)
            else:  # digits are ASCII only (`¹`, `٣` are not numbers)
                out = self.punctuation(c, pos)
            if out.__class__ is single:
                yield out  # type: ignore[misc]
            else:
                yield from out  # type: ignore[union-attr]
        self.job.pos = self.pos
        self.job.line = self.line
        self.job.line_start = self.line_start

    # -- whitespace, comments, newlines ------------------------------------------------

    def skip_comment(self, pos: int) -> None:
        text = self.text
        if text.startswith("#=", pos):
            self.skip_block_comment(pos)
            return
        end = text.find("\n", pos)
        self.pos = self.n if end < 0 else end

    def skip_block_comment(self, start: int) -> None:
        """Skip a nested `#= ... =#` comment, counting the lines inside it."""
        span = self.span(start)
        depth = 0
        for m in _BLOCK_COMMENT_RE.finditer(self.text, start):
            s = m.group()
            if s == "\n":
                self.line += 1
                self.line_start = m.end()
            elif s == "#=":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self.pos = m.end()
                    return
        raise self.error('unterminated block comment "#="', span, incomplete=True,
                         hint=f'the comment opened at line {span.line} needs a closing "=#"')

    def skip_space(self) -> None:
        """Skip spaces, comments and newlines (counting lines) up to the next token."""
        text = self.text
        pos = self.pos
        while True:
            end = _BLANK_RE.match(text, pos).end()  # type: ignore[union-attr]
            lines = text.count("\n", pos, end)
            if lines:
                self.line += lines
                self.line_start = text.rindex("\n", pos, end) + 1
            if not text.startswith("#=", end):
                break
            self.skip_block_comment(end)
            pos = self.pos
        self.pos = end

    def newline(self) -> Emitted | None:
        """A newline (and any blank or comment lines after it): a statement end, a matrix
        row end, the end of a macro call, or just space, depending on the open frame and
        on what the parser can accept."""
        nl_pos = self.pos
        nl_line = self.line
        nl_col = self.col(nl_pos)
        self.skip_space()
        frame = self.frames[-1]
        kind = frame.kind
        if kind == TOP or kind == BLOCK:
            if self.prev_type != NL and self.prev_type is not None and self.accepts(NL):
                return self.separator("\n", nl_pos, nl_line, nl_col)
        elif kind == MACRO:
            return self.newline_in_macro(nl_pos, nl_line, nl_col)
        elif (kind == VECT or kind == INDEX) and not frame.comma:
            nxt = self.text[self.pos] if self.pos < self.n else ""
            if nxt != "]" and not self.next_word_is("for") and self.accepts(ROWSEP):
                return JlToken(ROWSEP, "\n", nl_pos, nl_line, nl_col, nl_line, nl_col + 1,
                               nl_pos + 1)
        return None

    def newline_in_macro(self, nl_pos: int, nl_line: int, nl_col: int) -> Iterator[JlToken]:
        """A newline ends the macro calls open at the top of the frame stack, unless an
        argument is incomplete (`@test a ==⏎ b`); then it acts as in the enclosing frame."""
        frames = self.frames
        while frames[-1].kind == MACRO:
            if not self.accepts(MACRO_END):
                return  # the incomplete argument continues on the next line
            frames.pop()
            yield JlToken(MACRO_END, "", nl_pos, nl_line, nl_col, nl_line, nl_col, nl_pos)
        kind = frames[-1].kind
        if (kind == TOP or kind == BLOCK) and self.prev_type != NL and self.accepts(NL):
            yield self.separator("\n", nl_pos, nl_line, nl_col)

    def separator(self, value: str, pos: int, line: int, col: int) -> JlToken:
        """A statement separator token (`_NL`), from a newline or a `;`."""
        self.frames[-1].header = False
        self.prev_prev_type = self.prev_type
        self.prev_type = NL
        self.prev_end = pos + 1
        self.prev_line = line
        return JlToken(NL, value, pos, line, col, line, col + 1, pos + 1)

    def header_end(self, pos: int) -> JlToken | None:
        """In a one-line block (`if x > 0 return x end`, `for i in a s += i end`): a
        zero-width separator between a complete header and a body on the same line,
        where the token at `pos` starts a new expression after a space."""
        if (self.prev_line != self.line or self.prev_end == pos
                or self.prev_type not in _OPERAND_END):
            return None
        text = self.text
        c = text[pos]
        if c.isalpha() or c == "_":
            m = _IDENT_RE.match(text, pos)
            if m is None or m.group() in _INFIX_WORDS:
                return None
        elif not (c.isdigit() or c in "\"'@([" or c in "∂∇℘"):
            return None
        if not self.accepts(NL):
            return None
        self.frames[-1].header = False
        self.prev_prev_type = self.prev_type
        self.prev_type = NL
        self.prev_end = pos
        col = self.col(pos)
        return JlToken(NL, "", pos, self.line, col, self.line, col, pos)

    def next_word_is(self, word: str) -> bool:
        text = self.text
        pos = self.pos
        end = pos + len(word)
        if not text.startswith(word, pos):
            return False
        return end >= self.n or not (text[end].isalnum() or text[end] in "_!")

    def end_of_input(self) -> list[JlToken]:
        """At the end of the text: close macro calls; any other open frame is an error."""
        out = self.close_macros(self.pos)
        frame = self.frames[-1]
        if frame.kind == TOP:
            return out
        span = Span(frame.line, frame.col)
        if frame.kind == BLOCK:
            raise self.error(
                f'missing "end" for "{frame.opener}" opened at line {frame.line}',
                span, incomplete=True)
        if frame.kind == INTERP:
            raise self.error("unterminated string interpolation", span, incomplete=True)
        raise self.error(
            f'missing "{_CLOSER[frame.kind]}" for "{frame.opener}" opened at line '
            f"{frame.line}, column {frame.col}", span, incomplete=True)

    # -- names and keywords -----------------------------------------------------------

    def word(self, pos: int) -> Emitted:
        """An identifier, a keyword or a qualified macro name (`Base.@kwdef`)."""
        text = self.text
        m = _IDENT_RE.match(text, pos)
        if m is None:  # a combining mark cannot start a name
            raise self.error(f"unexpected character {text[pos]!r}", self.span(pos))
        end = m.end()
        word = canonical_name(m.group())
        if word in KEYWORDS:
            return self.keyword(word, pos, end)
        if end < self.n and text[end] == '"':
            return self.string_macro(word, pos, end)
        if end < self.n and text[end] == ".":
            qm = _QUALIFIED_MACRO_RE.match(text, pos)
            if qm is not None:  # `Base.@kwdef`
                return self.macro(pos, qm.end(), qm.group(1))
        if word == "mutable" and _MUTABLE_RE.match(text, end):
            return self.block_open(MUTABLE_STRUCT, "mutable struct", pos,
                                   text.index("struct", end) + 6)
        if word == "abstract" and _ABSTRACT_RE.match(text, end):
            return self.block_open(ABSTRACT_TYPE, "abstract type", pos,
                                   text.index("type", end) + 4)
        if self.prev_type == CATCH and self.prev_line == self.line:
            return self.token(CATCHVAR, word, pos, end)
        if (word == "outer" and self.prev_type in (FOR, COMMA) and _OUTER_RE.match(text, end)
                and self.accepts(OUTER)):
            return self.token(OUTER, word, pos, end)
        if self.prev_end == pos or self.frames[-1].kind in _SPACE_SENSITIVE:
            return self.operand(NAME, word, pos, end)
        return self.token(NAME, word, pos, end)

    def keyword(self, word: str, pos: int, end: int) -> Emitted:
        if word == "end":
            return self.end_keyword(pos, end)
        ttype = _BLOCK_KEYWORDS.get(word)
        if ttype is not None:
            return self.block_open(ttype, word, pos, end)
        ttype = _MID_KEYWORDS.get(word)
        if ttype is not None:
            out = self.close_macros(pos)
            self.check_no_open_bracket(word, pos)
            if ttype == ELSEIF:
                self.frames[-1].header = True
            out.append(self.token(ttype, word, pos, end))
            return out
        if (word == "in" or word == "isa") and self.text.startswith("(", end):
            return self.operand(NAME, word, pos, end)  # the function: `in(x, xs)`
        ttype = _PLAIN_KEYWORDS[word]
        if (word == "in" or word == "isa") and not self.accepts(ttype) and self.accepts(NAME):
            # a name where no operator can be: `f(in, out)`
            return self.operand(NAME, word, pos, end)
        return self.token(ttype, word, pos, end)

    def block_open(self, ttype: str, word: str, pos: int, end: int) -> Iterator[JlToken]:
        """A keyword opening a block; `for` and `if` after an expression inside brackets
        are a comprehension's instead (`[x for x in xs if p(x)]`), and `begin` directly
        inside `x[...]` is the first index (`x[begin]`), as `end` is the last."""
        frame_kind = self.frames[-1].kind
        if word == "begin" and frame_kind == INDEX:
            marker = self.operand_marker(pos)
            if marker is not None:
                yield marker
            yield self.token(ENDMARKER, "begin", pos, end)
            return
        if frame_kind in _SPACE_SENSITIVE and self.prev_end != pos:
            allowed = _MACRO_ARG_KEYWORDS if frame_kind == MACRO else _ELEMENT_KEYWORDS
            if ttype in allowed and self.accepts(HSEP):
                yield self.marker(HSEP, pos)
        if (ttype == FOR or ttype == IF) and not self.accepts(ttype):
            yield self.token(COMPFOR if ttype == FOR else COMPIF, word, pos, end)
            return
        self.push(BLOCK, word, pos)
        if ttype in _HEADER_KEYWORDS:
            self.frames[-1].header = True
        yield self.token(ttype, word, pos, end)

    def end_keyword(self, pos: int, end: int) -> Emitted:
        """`end`: closes the innermost block, or is the last index inside `x[...]`."""
        out = self.close_macros(pos)
        frame = self.frames[-1]
        if frame.kind == BLOCK:
            self.frames.pop()
            out.append(self.token(END, "end", pos, end))
            if frame.opener == "do":
                self.prev_type = DO_END  # `f(xs) do x ... end[1]` indexes the call's value
        elif self.in_index():
            marker = self.operand_marker(pos)
            if marker is not None:
                out.append(marker)
            out.append(self.token(ENDMARKER, "end", pos, end))
        elif frame.kind in _BRACKETS:
            raise self.unclosed_bracket_error(frame, '"end"', pos)
        else:
            raise self.error('unexpected "end": there is no open block to close',
                             self.span(pos))
        return out

    def in_index(self) -> bool:
        """Whether the innermost brackets (up to the nearest block) include `x[...]`."""
        for frame in reversed(self.frames):
            if frame.kind == INDEX:
                return True
            if frame.kind not in _BRACKETS:
                return False
        return False

    def check_no_open_bracket(self, word: str, pos: int) -> None:
        frame = self.frames[-1]
        if frame.kind in _BRACKETS:
            raise self.unclosed_bracket_error(frame, f'"{word}"', pos)

    def unclosed_bracket_error(self, frame: Frame, found: str, pos: int) -> ZylaParseError:
        return self.error(
            f'missing "{_CLOSER[frame.kind]}" for "{frame.opener}" opened at line '
            f"{frame.line}, column {frame.col} (found {found} at line {self.line}, "
            f"column {self.col(pos)})",
            Span(frame.line, frame.col))

    # -- macros -----------------------------------------------------------------------

    def macro(self, pos: int, end: int, name: str) -> Emitted:
        """`@name args...` (a frame up to the end of the line) or `@name(args...)`."""
        full = self.text[pos:end]
        if self.prev_type in (COLON, COMMA) and self.accepts(NAME) \
                and not self.accepts(MACRONAME):
            # a macro named in a `using M: @m, f` list: a name there, not a call
            return self.token(NAME, full, pos, end)
        if end < self.n and self.text[end] == "(":
            return self.operand(MACRONAME_PAREN, full, pos, end)
        marker = self.operand_marker(pos)
        self.push(MACRO, "@" + name, pos)
        tok = self.token(MACRONAME, full, pos, end)
        return tok if marker is None else (marker, tok)

    # -- numbers ------------------------------------------------------------------------

    def number(self, pos: int) -> Emitted:
        m = _NUMBER_RE.match(self.text, pos)
        assert m is not None
        s = m.group()
        if s[:2] == "0x" and ("p" in s or "P" in s):
            ttype = FLOAT  # a hexadecimal float, 0x1.8p3 (always a Float64)
        elif s[:2] in ("0x", "0b", "0o"):
            ttype = INT
        elif "f" in s:
            ttype = FLOAT32
        elif "." in s or "e" in s or "E" in s:
            ttype = FLOAT
        else:
            ttype = INT
        if self.frames[-1].kind in _SPACE_SENSITIVE:
            return self.operand(ttype, s, pos, m.end())
        return self.token(ttype, s, pos, m.end())

    # -- punctuation and operators ------------------------------------------------------

    def punctuation_at(self, pos: int) -> Emitted:
        return self.punctuation(self.text[pos], pos)

    def punctuation(self, c: str, pos: int) -> Emitted:
        handler = _PUNCTUATION.get(c)
        if handler is not None:
            return handler(self, pos)
        if c in _OPERATOR_START:
            return self.operator(pos)
        if c == "$":  # (`@. $f(x)`; elsewhere the lowering refuses it)
            return self.token(DOLLAR, "$", pos, pos + 1)
        raise self.error(f"unexpected character {c!r}", self.span(pos))

    def open_bracket(self, pos: int) -> Emitted:
        """`(`, `[` or `{`: glued to what may be called, indexed or parameterised (`f(`,
        `x[`, `T{`), it opens a call, an index or a curly frame; otherwise a grouping paren,
        a vector or a brace, after a juxtaposition marker where one applies (`2(`)."""
        c = self.text[pos]
        glued_after, glued_kind, glued_type, kind, ttype, juxtaposes = _OPENERS[c]
        if self.prev_end == pos and self.prev_type in glued_after:
            self.push(glued_kind, c, pos)
            return self.token(glued_type, c, pos, pos + 1)
        marker = self.operand_marker(pos) if juxtaposes else None
        self.push(kind, c, pos)
        tok = self.token(ttype, c, pos, pos + 1)
        return tok if marker is None else (marker, tok)

    def close_bracket(self, pos: int) -> Emitted:
        c = self.text[pos]
        frame = self.frames[-1]
        out = self.close_macros(pos) if frame.kind == MACRO else None
        if out:
            frame = self.frames[-1]
        if frame.kind in _BRACKETS:
            if _CLOSER[frame.kind] != c:
                raise self.error(
                    f'unexpected "{c}": expected "{_CLOSER[frame.kind]}" to close '
                    f'"{frame.opener}" opened at line {frame.line}, column {frame.col}',
                    self.span(pos))
            self.frames.pop()
            if self.frames[-1].kind == INTERP:
                self.done = True
            tok = self.token(_CLOSE_TYPE[c], c, pos, pos + 1)
            if out:
                out.append(tok)
                return out
            return tok
        if frame.kind == BLOCK:
            raise self.error(
                f'unexpected "{c}": missing "end" for "{frame.opener}" opened at line '
                f"{frame.line}", self.span(pos))
        raise self.error(f'unexpected "{c}" with no matching opening bracket', self.span(pos))

    def comma(self, pos: int) -> Emitted:
        frame = self.frames[-1]
        if frame.kind == MACRO:
            out = self.close_macros(pos, inside_brackets_only=True)
            out.append(self.token(COMMA, ",", pos, pos + 1))
            return out
        if frame.kind == VECT or frame.kind == INDEX:
            frame.comma = True
        return self.token(COMMA, ",", pos, pos + 1)

    def semicolon(self, pos: int) -> Emitted:
        out = self.close_macros(pos)
        kind = self.frames[-1].kind
        if kind == TOP or kind == BLOCK:
            if self.prev_type != NL:
                out.append(self.separator(";", pos, self.line, self.col(pos)))
            self.pos = pos + 1
        elif kind == PAREN or kind == CALL:
            out.append(self.token(PSEMI, ";", pos, pos + 1))
        elif kind == VECT or kind == INDEX:
            text = self.text
            if text.startswith(";;", pos + 1):
                raise self.error("concatenation along the third dimension or beyond (`;;;`) "
                                 "is not supported", self.span(pos))
            if text.startswith(";", pos + 1):
                out.append(self.token(DSEMI, ";;", pos, pos + 2))
            else:
                out.append(self.token(ROWSEP, ";", pos, pos + 1))
        else:
            raise self.error('unexpected ";" inside "{ }"', self.span(pos))
        return out

    def quote(self, pos: int) -> Emitted:
        if self.prev_end == pos and self.prev_type in _ADJOINT_AFTER:
            return self.token(ADJOINT, "'", pos, pos + 1)
        return self.char(pos)

    def at_sign(self, pos: int) -> Emitted:
        m = _MACRO_RE.match(self.text, pos)
        if m is None:
            raise self.error('"@" must be followed by a macro name', self.span(pos))
        return self.macro(pos, m.end(), m.group(1))

    def colon(self, pos: int) -> Emitted:
        """`::`, a range `:`, a ternary `:`, a symbol `:x` or a bare `:` (`A[:, 1]`)."""
        text = self.text
        if text.startswith("::", pos):
            return self.operator(pos)
        nxt = text[pos + 1] if pos + 1 < self.n else ""
        starts_name = bool(nxt) and _ID_START_RE.match(nxt) is not None
        spaced = self.prev_end != pos
        if spaced and starts_name and self.frames[-1].kind in _SPACE_SENSITIVE:
            marker = self.operand_marker(pos)
            if marker is not None:  # `[a :b]`: a new element, the symbol :b
                m = _IDENT_RE.match(text, pos + 1)
                assert m is not None
                return (marker, self.token(SYMBOL, m.group(), pos, m.end()))
        op = self.quoted_operator(pos) if not starts_name else None
        if op is not None and self.prev_type == DOT:
            # `Base.:+`: the operator's name, as a field of the module
            return self.token(NAME, op, pos, pos + 1 + len(op))
        paren = self.paren_quoted_operator(pos) if self.prev_type == DOT else None
        if paren is not None:  # `Base.:(==)`, likewise
            return self.token(NAME, paren[0], pos, paren[1])
        if self.accepts(COLON):
            if spaced and self.accepts(TERNCOLON):
                return self.token(TERNCOLON, ":", pos, pos + 1)
            return self.token(COLON, ":", pos, pos + 1)
        if self.accepts(TERNCOLON):
            return self.token(TERNCOLON, ":", pos, pos + 1)
        if starts_name:
            m = _IDENT_RE.match(text, pos + 1)
            assert m is not None
            return self.operand(SYMBOL, canonical_name(m.group()), pos, m.end())
        if op is not None:  # `:+`, the symbol of an operator
            return self.operand(SYMBOL, op, pos, pos + 1 + len(op))
        if nxt == "(" and self.accepts(QUOTECOLON):  # `:(x + 1)`, an expression quote
            m = _QUOTED_SYNTAX_RE.match(text, pos)
            if m is not None:  # `:(=)`, `:(::)`: the symbol of a syntax operator
                return self.operand(SYMBOL, m.group(1), pos, m.end())
            return self.operand(QUOTECOLON, ":", pos, pos + 1)
        return self.operand(BARECOLON, ":", pos, pos + 1)

    def quoted_operator(self, colon: int) -> str | None:
        """The operator a `:` at `colon` quotes (`:+`, `Base.:*`), when one follows it
        and ends there (before a delimiter, not an operand: `a[:-1]` is not one)."""
        m = _OPERATOR_RE.match(self.text, colon + 1)
        if m is None or OPERATORS[m.group()] not in _VALUE_OPERATOR_TYPES:
            return None
        end = m.end()
        return m.group() if end >= self.n or self.text[end] in " \t\r\n,;)]}(" else None

    def paren_quoted_operator(self, colon: int) -> tuple[str, int] | None:
        """The operator that `:(op)` at `colon` quotes (`Base.:(==)`) and the end of the
        `)`, or None."""
        if not self.text.startswith("(", colon + 1):
            return None
        if self.text.startswith(":)", colon + 2):
            return ":", colon + 4  # `Base.:(:)`, the range operator
        m = _OPERATOR_RE.match(self.text, colon + 2)
        if (m is None or OPERATORS[m.group()] not in _VALUE_OPERATOR_TYPES
                or not self.text.startswith(")", m.end())):
            return None
        return m.group(), m.end() + 1

    def imported_operator(self, start: int) -> bool:
        """Whether an operator at `start` ends an `import`/`using` line's module path
        (`import Base.^`): it stands before the end of the statement or a comma."""
        m = _OPERATOR_RE.match(self.text, start)
        if m is None or OPERATORS[m.group()] not in _VALUE_OPERATOR_TYPES:
            return False
        line = self.text[self.text.rfind("\n", 0, start) + 1:start - 1]  # (before the dot)
        rest = self.text[m.end():m.end() + 1]
        return _IMPORT_LINE_RE.match(line) is not None and rest in ("", ",", ";", "\n", "\r")

    def dot(self, pos: int) -> Emitted:
        """`...`, `.5`, `f.(x)`, `a.b`, or a dotted operator `.+`."""
        text = self.text
        nxt = text[pos + 1] if pos + 1 < self.n else ""
        adjacent = self.prev_end == pos
        if text.startswith("...", pos):
            return self.token(ELLIPSIS, "...", pos, pos + 3)
        if "0" <= nxt <= "9" and not (adjacent and self.prev_type in _INDEXABLE_END):
            return self.number(pos)
        if self.prev_type in (USING, IMPORT) and _ID_START_RE.match(nxt or " "):
            return self.token(DOT, ".", pos, pos + 1)  # a relative module: `using .M`
        if nxt == "(" and adjacent and self.prev_type in _CALLABLE_END:
            self.push(CALL, ".(", pos)
            return self.token(DOT_LPAREN, ".(", pos, pos + 2)
        if adjacent and self.prev_type in _FIELD_BASE and _ID_START_RE.match(nxt or " "):
            return self.token(DOT, ".", pos, pos + 1)
        if adjacent and self.prev_type in _FIELD_BASE and nxt == ":" and \
                (self.quoted_operator(pos + 1) or self.paren_quoted_operator(pos + 1)):
            return self.token(DOT, ".", pos, pos + 1)  # `Base.:+`, an operator of a module
        if adjacent and self.prev_type == NAME and self.imported_operator(pos + 1):
            return self.token(DOT, ".", pos, pos + 1)  # `import Base.^`
        if _OPERATOR_RE.match(text, pos):
            return self.operator(pos)
        raise self.error('unexpected "."', self.span(pos))

    def operator(self, pos: int) -> Emitted:
        text = self.text
        m = _OPERATOR_RE.match(text, pos)
        if m is None:
            raise self.error(f"unexpected character {text[pos]!r}", self.span(pos))
        op = m.group()
        end = m.end()
        ttype = OPERATORS[op]
        if (ttype in _VALUE_OPERATOR_TYPES or ttype == PAIR) and self.stands_alone(end):
            # an operator passed as a function: `map(+, xs)`, `reduce(*, v)`, `map(=>, a, b)`
            return self.operand(NAME, op, pos, end)
        if ttype in _VALUE_OPERATOR_TYPES and self.assigned_operator(end):
            # an operator as a variable: `⊕ = (a, b) -> a + 2b`, `let ⊕ = f`
            return self.operand(NAME, op, pos, end)
        if (ttype in _VALUE_OPERATOR_TYPES and text.startswith("(", end)
                and self.names_operator(end, ttype)):
            # an operator called by name: `+(1, 2)`, and the method definitions
            # `*(a::T, b::T) = ...`, `-(a::T) = ...`, `function ==(a, b) ... end`
            return self.operand(NAME, op, pos, end)
        if ttype in _PREFIX_TYPES and self.frames[-1].kind in _SPACE_SENSITIVE:
            # `[a -b]` is two elements, `[a - b]` one
            if self.prev_end != pos and end < self.n and text[end] not in " \t\r\n":
                return self.operand(ttype, op, pos, end)
        if ttype == SUBTYPE and self.prev_type == NAME and self.prev_prev_type == WHERE:
            ttype = WHERE_SUBTYPE
        return self.token(ttype, op, pos, end)

    def names_operator(self, paren: int, ttype: str) -> bool:
        """Whether an operator of class `ttype` directly followed by the `(` at `paren`
        is the function's name: where an operand starts, at the start of a statement or
        after `function` (a definition), for an operator that cannot be unary
        (`y = *(xs...)`), or with a comma inside the parentheses (`x = +(1, 2)`)."""
        if self.prev_type in _OPERAND_END and self.prev_line == self.line:
            return False
        if self.prev_type in (None, NL, FUNCTION) or self.prev_line != self.line:
            return True
        if ttype not in _PREFIX_TYPES:
            return True
        depth = 0
        text = self.text
        for i in range(paren, self.n):
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return False
            elif c == "," and depth == 1:
                return True
            elif c in "\"'\n":
                return False
        return False

    def assigned_operator(self, end: int) -> bool:
        """Whether the operator ending at `end` stands where an operand starts and is
        assigned to (a lone `=` follows it, not `==` or `=>`)."""
        if self.prev_type in _OPERAND_END and self.prev_line == self.line:
            return False
        m = _SPACES_RE.match(self.text, end)
        at = m.end() if m is not None else end
        return self.text.startswith("=", at) and not self.text.startswith(("==", "=>"), at)

    def stands_alone(self, end: int) -> bool:
        """Whether the operator ending at `end` is followed by `,` or `)` (so it is a value)."""
        m = _SPACES_RE.match(self.text, end)
        if m is not None:
            end = m.end()
        if end < self.n and self.text[end] in ",)":
            return True
        if end < self.n and self.text[end] == ";" and self.frames[-1].kind == CALL:
            return True  # `Parallel(+; a = ...)`
        if self.prev_type == ASSIGN and (end >= self.n or self.text[end] in "\r\n;#]}"):
            return True  # `f = +`, `op = ⊗;`
        # the last name of `import Base: +, -` (a list at statement level), `import Base.^`
        return (self.prev_type in (COMMA, COLON, DOT) and len(self.frames) == 1
                and (end >= self.n or self.text[end] in "\r\n;#"))

    # -- strings and characters -----------------------------------------------------------

    def string(self, pos: int) -> Emitted:
        """A string literal; its token value is the list of parts (str and AST nodes)."""
        marker = self.operand_marker(pos)
        line, col = self.line, self.col(pos)
        parts, end = _StringScanner(self, pos).scan()
        tok = JlToken(STRING, self.text[pos:end], pos, line, col, self.line, self.col(end), end)
        tok.value = parts
        self.prev_prev_type = self.prev_type
        self.prev_type = STRING
        self.prev_end = end
        self.prev_line = self.line
        self.pos = end
        return tok if marker is None else (marker, tok)

    def string_macro(self, name: str, pos: int, quote: int) -> Emitted:
        """A string macro `name"text"flags` (Julia's `@name_str("text", "flags")`): a
        STRING token whose value is that `MacroCall`; the text is raw (no `$`, and a
        backslash escapes only a quote or the backslashes before one)."""
        marker = self.operand_marker(pos)
        line, col = self.line, self.col(pos)
        span = self.span(pos)
        raw, end = _StringScanner(self, quote).scan_raw()
        args: list[Node] = [Literal(raw, "String", span=span)]
        suffix = _IDENT_RE.match(self.text, end)
        if suffix is not None and suffix.group() not in KEYWORDS:
            args.append(Literal(suffix.group(), "String", span=span))
            end = suffix.end()
        tok = JlToken(STRING, self.text[pos:end], pos, line, col, self.line, self.col(end), end)
        tok.value = MacroCall(f"{name}_str", args, span=span)
        self.prev_prev_type = self.prev_type
        self.prev_type = STRING
        self.prev_end = end
        self.prev_line = self.line
        self.pos = end
        return tok if marker is None else (marker, tok)

    def char(self, pos: int) -> Emitted:
        """A character literal `'a'`, `'\\n'`, `'σ'`; its token value is the character."""
        text = self.text
        span = self.span(pos)
        i = pos + 1
        if i >= self.n or text[i] in "\n'":
            raise self.error("invalid character literal", span)
        if text[i] == "\\":
            ch, i = _escape(text, i, lambda: self.error("invalid escape sequence", span))
        else:
            ch, i = text[i], i + 1
        if i >= self.n or text[i] != "'" or len(ch) != 1:
            raise self.error("unterminated or too long character literal", span,
                             hint="character literals hold one character; use \"...\" "
                                  "for strings")
        marker = self.operand_marker(pos)
        tok = self.token(CHAR, text[pos : i + 1], pos, i + 1)
        tok.value = ch
        return tok if marker is None else (marker, tok)


#: opener -> (the token types it may be glued to, the frame and token it then opens, the
#: frame and token it opens otherwise, whether a juxtaposition marker may precede it)
_OPENERS: dict[str, tuple[Any, str, str, str, str, bool]] = {
    "(": (_CALLABLE_END, CALL, CALL_LPAREN, PAREN, LPAREN, True),
    "[": (_INDEXABLE_END | _NUMBERS, INDEX, INDEX_LBRACK, VECT, LBRACK, True),  # (`1[1]`)
    "{": ((NAME, RBRACE), CURLY, CURLY_LBRACE, BRACE, LBRACE, False),
}

_PUNCTUATION: dict[str, Callable[[_Run, int], Emitted]] = {
    "(": _Run.open_bracket,
    "[": _Run.open_bracket,
    "{": _Run.open_bracket,
    ")": _Run.close_bracket,
    "]": _Run.close_bracket,
    "}": _Run.close_bracket,
    ",": _Run.comma,
    ";": _Run.semicolon,
    '"': _Run.string,
    "'": _Run.quote,
    "@": _Run.at_sign,
    ":": _Run.colon,
    ".": _Run.dot,
}


def _newline_at(run: _Run, pos: int) -> Emitted | None:
    return run.newline()


def _comment_at(run: _Run, pos: int) -> None:
    run.skip_comment(pos)


#: What the main loop does at an ASCII character (other than a space): start a token
#: (the handler returns it), or skip a comment or a newline (the handler may return None).
_DISPATCH: dict[str, Callable[[_Run, int], Emitted | None]] = {
    **{chr(i): _Run.punctuation_at for i in range(128)},
    **{c: _Run.word for c in "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    **{c: _Run.number for c in "0123456789"},
    "\n": _newline_at,
    "#": _comment_at,
    **_PUNCTUATION,
}


def _raw_byte(code: int) -> str:
    """`\\xNN` and octal escapes are bytes, as in Julia: one past 0x7f is kept as Python's
    surrogate escape of that byte (joined into characters by `_join_bytes`)."""
    return chr(0xDC00 + code) if 0x80 <= code <= 0xFF else chr(code)


def _join_bytes(buf: list[str]) -> str:
    """A string literal's text: escaped bytes that spell UTF-8 characters become them
    (`"\\xce\\xb1" == "α"`); the others stay escaped bytes."""
    s = "".join(buf)
    if not any("\udc80" <= ch <= "\udcff" for ch in s):
        return s
    raw = b"".join(bytes([ord(ch) - 0xDC00]) if "\udc80" <= ch <= "\udcff"
                   else ch.encode("utf-8", "surrogatepass") for ch in s)
    return raw.decode("utf-8", "surrogateescape")


def _escape(text: str, i: int, fail: Callable[[], ZylaParseError]) -> tuple[str, int]:
    """Decode the escape sequence starting with the backslash at `i`."""
    c = text[i + 1] if i + 1 < len(text) else ""
    simple = _SIMPLE_ESCAPES.get(c)
    if simple is not None:
        return simple, i + 2
    digits = _HEX_ESCAPE_DIGITS.get(c)
    if digits is not None:
        j = i + 2
        while j < len(text) and j < i + 2 + digits and text[j] in "0123456789abcdefABCDEF":
            j += 1
        code = int(text[i + 2 : j], 16) if j > i + 2 else -1
        if not 0 <= code <= 0x10FFFF:
            raise fail()
        return (_raw_byte(code) if c == "x" else chr(code)), j
    if c in "01234567" and c:
        j = i + 1
        while j < len(text) and j < i + 4 and text[j] in "01234567":
            j += 1
        return _raw_byte(int(text[i + 1 : j], 8)), j
    raise fail()


class _RawNewline:
    """A newline written in the source of a triple-quoted string (for dedenting)."""


_RAW_NL = _RawNewline()


class _StringScanner:
    """Scans one string literal for `_Run.string`, parsing `$(...)` interpolations."""

    def __init__(self, run: _Run, start: int) -> None:
        self.run = run
        self.text = run.text
        self.start = start
        self.start_span = run.span(start)
        self.triple = self.text.startswith('"""', start)

    def fail(self, message: str = "invalid escape sequence in string") -> ZylaParseError:
        return self.run.error(message, self.start_span)

    def scan(self) -> tuple[list[str | Node], int]:
        """Return the parts of the string and the position after its closing quote."""
        run = self.run
        text = self.text
        n = run.n
        triple = self.triple
        i = self.start + (3 if triple else 1)
        items: list[Any] = []
        buf: list[str] = []
        while True:
            m = _STRING_CHUNK_RE.match(text, i)
            if m is not None:
                buf.append(m.group())
                i = m.end()
            if i >= n:
                raise run.error("unterminated string literal", self.start_span, incomplete=True)
            c = text[i]
            if c == '"':
                if not triple:
                    i += 1
                    break
                if text.startswith('"""', i):
                    i += 3
                    break
                buf.append('"')
                i += 1
            elif c == "\n":
                i += 1
                run.line += 1
                run.line_start = i
                if triple:
                    items.append("".join(buf))
                    buf.clear()
                    items.append(_RAW_NL)
                else:
                    buf.append("\n")
            elif c == "\\":
                if text.startswith("\n", i + 1):  # a line continuation
                    i += 2
                    run.line += 1
                    run.line_start = i
                    spaces = _SPACES_RE.match(text, i)
                    if spaces is not None:
                        i = spaces.end()
                    continue
                s, i = _escape(text, i, self.fail)
                buf.append(s)
            else:  # "$"
                items.append(_join_bytes(buf))
                buf.clear()
                node, i = self.interpolation(i)
                items.append(node)
        items.append(_join_bytes(buf))
        if triple:
            items = _dedent(items)
        return _merge(items), i

    def scan_raw(self) -> tuple[str, int]:
        """The text of a string macro's literal (Julia's raw string rules: a run of
        backslashes before a quote is halved, an odd run escaping the quote; any other
        backslash is kept) and the position after its closing quote."""
        run, text, triple = self.run, self.text, self.triple
        i = self.start + (3 if triple else 1)
        items: list[Any] = []
        buf: list[str] = []
        while True:
            m = _RAW_CHUNK_RE.match(text, i)
            if m is not None:
                buf.append(m.group())
                i = m.end()
            if i >= run.n:
                raise run.error("unterminated string literal", self.start_span, incomplete=True)
            c = text[i]
            if c == "\\":
                k = len(_BACKSLASHES_RE.match(text, i).group())  # type: ignore[union-attr]
                quoted = text.startswith('"', i + k)
                buf.append("\\" * (k // 2 if quoted else k) + ('"' if quoted and k % 2 else ""))
                i += k + (1 if quoted and k % 2 else 0)
            elif c == "\n":
                i += 1
                run.line += 1
                run.line_start = i
                if triple:
                    items.extend(("".join(buf), _RAW_NL))
                    buf.clear()
                else:
                    buf.append("\n")
            elif not triple or text.startswith('"""', i):
                i += 3 if triple else 1
                break
            else:
                buf.append('"')
                i += 1
        items.append("".join(buf))
        if triple:
            items = _dedent(items)
        return "".join(x for x in _merge(items) if isinstance(x, str)), i

    def interpolation(self, i: int) -> tuple[Node, int]:
        """`$name` or `$(expr)` at `i`; returns the node and the position after it."""
        run = self.run
        text = self.text
        nxt = text[i + 1] if i + 1 < run.n else ""
        if nxt == "(":
            job = LexInput(text, run.job.filename, i + 1, run.line, run.line_start,
                           interp=True, subparse=run.job.subparse)
            if run.job.subparse is None:
                raise run.error("string interpolation needs a parser", run.span(i))
            node = run.job.subparse(job)
            run.line = job.line
            run.line_start = job.line_start
            return node, job.pos
        m = _IDENT_RE.match(text, i + 1)
        if m is None or m.group() in KEYWORDS:
            raise run.error('"$" in a string must be followed by a name or "("', run.span(i),
                            hint='write "\\$" for a literal dollar sign')
        return Ident(m.group(), span=run.span(i + 1)), m.end()


def _merge(items: list[Any]) -> list[str | Node]:
    """Join adjacent text, drop empty text and raw-newline markers become "\\n"."""
    out: list[str | Node] = []
    for item in items:
        if item is _RAW_NL:
            item = "\n"
        if isinstance(item, str):
            if not item:
                continue
            if out and isinstance(out[-1], str):
                out[-1] += item
                continue
        out.append(item)
    return out


def _dedent(items: list[Any]) -> list[Any]:
    """Julia's triple-quoted string rules: drop a newline right after the opening quotes,
    and remove the longest common leading run of spaces and tabs from every line but the
    first; lines holding only spaces and tabs do not count, except the last one."""
    lines: list[list[Any]] = [[]]
    for item in items:
        if item is _RAW_NL:
            lines.append([])
        elif not (isinstance(item, str) and not item):
            lines[-1].append(item)
    if len(lines) == 1:
        return items

    def indent(line: list[Any]) -> str:
        if not line or not isinstance(line[0], str):
            return ""
        first = line[0]
        return first[: len(first) - len(first.lstrip(" \t"))]

    def blank(line: list[Any]) -> bool:
        return all(isinstance(x, str) and not x.strip(" \t") for x in line)

    candidates = [indent(line) for line in lines[1:-1] if not blank(line)]
    last = lines[-1]
    candidates.append("".join(last) if blank(last) else indent(last))
    prefix = candidates[0]
    for c in candidates[1:]:
        k = 0
        while k < len(prefix) and k < len(c) and prefix[k] == c[k]:
            k += 1
        prefix = prefix[:k]
    out: list[Any] = []
    for number, line in enumerate(lines):
        if number > 0:
            if number > 1 or lines[0]:
                out.append(_RAW_NL)
            if prefix and line and isinstance(line[0], str) and line[0].startswith(prefix):
                line = [line[0][len(prefix) :], *line[1:]]
        out.extend(line)
    return out
