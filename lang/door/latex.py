"""LaTeX-style names completed to Unicode, as in Julia's REPL (`\\alpha<TAB>` → `α`).

`LATEX` maps a name (with its backslash) to its text; combining accents (`\\hat`,
`\\bar`, `\\dot`, `\\tilde`, `\\vec`, ...) map to a combining character that joins the
character before it (`x\\hat<TAB>` → `x̂`). `complete_latex(prefix)` lists the names that
start with a prefix.
"""

from __future__ import annotations

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π", "varpi": "ϖ",
    "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ",
    "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Alpha": "Α", "Beta": "Β", "Gamma": "Γ", "Delta": "Δ", "Epsilon": "Ε", "Zeta": "Ζ",
    "Eta": "Η", "Theta": "Θ", "Iota": "Ι", "Kappa": "Κ", "Lambda": "Λ", "Mu": "Μ", "Nu": "Ν",
    "Xi": "Ξ", "Omicron": "Ο", "Pi": "Π", "Rho": "Ρ", "Sigma": "Σ", "Tau": "Τ",
    "Upsilon": "Υ", "Phi": "Φ", "Chi": "Χ", "Psi": "Ψ", "Omega": "Ω",
}

_SYMBOLS = {
    # relations and operators
    "in": "∈", "notin": "∉", "ni": "∋", "approx": "≈", "napprox": "≉", "equiv": "≡",
    "ne": "≠", "neq": "≠", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ll": "≪", "gg": "≫",
    "sim": "∼", "simeq": "≃", "cong": "≅", "propto": "∝", "cdot": "⋅", "times": "×",
    "div": "÷", "pm": "±", "mp": "∓", "circ": "∘", "otimes": "⊗", "oplus": "⊕",
    "odot": "⊙", "star": "⋆", "ast": "∗", "bullet": "∙", "sqrt": "√", "cbrt": "∛",
    "fourthroot": "∜", "subset": "⊂", "supset": "⊃", "subseteq": "⊆", "supseteq": "⊇",
    "cup": "∪", "cap": "∩", "setminus": "∖", "emptyset": "∅", "varnothing": "∅",
    "forall": "∀", "exists": "∃", "nexists": "∄", "neg": "¬", "wedge": "∧", "vee": "∨",
    "xor": "⊻", "nand": "⊼", "nor": "⊽", "perp": "⟂", "parallel": "∥", "mid": "∣",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "leftrightarrow": "↔",
    "Rightarrow": "⇒", "Leftarrow": "⇐", "Leftrightarrow": "⇔", "mapsto": "↦",
    "uparrow": "↑", "downarrow": "↓", "implies": "⟹", "iff": "⟺",
    # calculus and constants
    "partial": "∂", "nabla": "∇", "infty": "∞", "sum": "∑", "prod": "∏", "int": "∫",
    "iint": "∬", "oint": "∮", "euler": "ℯ", "hbar": "ℏ", "ell": "ℓ", "Re": "ℜ", "Im": "ℑ",
    "aleph": "ℵ", "wp": "℘", "degree": "°", "prime": "′", "dprime": "″", "trprime": "‴",
    "ldots": "…", "cdots": "⋯", "vdots": "⋮", "ddots": "⋱", "dagger": "†", "ddagger": "‡",
    "top": "⊤", "bot": "⊥", "transpose": "ᵀ", "angle": "∠", "checkmark": "✓",
    # blackboard bold
    "bbR": "ℝ", "bbN": "ℕ", "bbZ": "ℤ", "bbQ": "ℚ", "bbC": "ℂ", "bbP": "ℙ", "bbE": "𝔼",
    "bbone": "𝟙",
    # combining accents: they join the character before the cursor
    "hat": "\u0302", "bar": "\u0304", "overbar": "\u0305", "dot": "\u0307", "ddot": "\u0308",
    "tilde": "\u0303", "vec": "\u20d7", "check": "\u030c", "acute": "\u0301",
    "grave": "\u0300", "breve": "\u0306", "ocirc": "\u030a", "underbar": "\u0332",
}

_SUPER = dict(zip("0123456789+-=()aeinT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵉⁱⁿᵀ", strict=False))
_SUB = dict(zip("0123456789+-=()aeijoruvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₒᵣᵤᵥₓ", strict=False))

LATEX: dict[str, str] = {"\\" + k: v for k, v in {**_GREEK, **_SYMBOLS}.items()}
LATEX.update({f"\\^{k}": v for k, v in _SUPER.items()})
LATEX.update({f"\\_{k}": v for k, v in _SUB.items()})

#: Names whose text is a combining character (it modifies the preceding character).
COMBINING = frozenset(k for k, v in LATEX.items() if len(v) == 1 and "\u0300" <= v <= "\u036f"
                      or v == "\u20d7")


def complete_latex(prefix: str) -> list[tuple[str, str]]:
    """(name, text) pairs for the names starting with `prefix` (which starts with a
    backslash); an exact match comes first."""
    out = sorted((k, v) for k, v in LATEX.items() if k.startswith(prefix) and k != prefix)
    if prefix in LATEX:
        out.insert(0, (prefix, LATEX[prefix]))
    return out
