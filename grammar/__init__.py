"""Floor 1 of Zyla's pipeline: source text -> AST.

`julia.lark` is the LALR grammar; `lexer.py` the parser-state-aware lexer that feeds it;
`tables.py` builds the parser tables; `parser.py` turns the parse into the AST of `ast.py`
(nodes with source `Span`s); `unparse.py` prints an AST back as source; `errors.py` holds
`SourceFile` and `ZylaError`, the error every layer raises, with its caret formatting.

Imports nothing of the project. Start reading at `parser.parse`.
"""
