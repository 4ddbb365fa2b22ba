"""Numbers that carry their own formula, so every figure in a plan can be checked by hand.

A :class:`Quantity` holds a value and how it was computed. Its formula reads in symbols
(``w * P / (TP * PP)``) or with the numbers put in (``2 * 70000000000 / (8 * 2)``). The arithmetic
is written once; the text is rendered only when asked for, since the layout search computes
thousands of estimates and shows a few. The JSON report carries value and both texts, and the
numeric text evaluates to the value.
"""

from __future__ import annotations

import math

_SUM, _PRODUCT, _ATOM = 1, 2, 3
# The least precedence each operand may have unparenthesised: a - (b + c), a / (b * c).
_OPERANDS = {"+": (_SUM, _SUM), "-": (_SUM, _PRODUCT), "*": (_PRODUCT, _PRODUCT)}
_OPERANDS["/"] = (_PRODUCT, _ATOM)


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return format(value, ".12g")


class Quantity:
    """A value and how it was computed; treat as immutable. A plain class with slots, as the
    layout search makes hundreds of thousands of them."""

    __slots__ = ("_numeric", "_symbolic", "args", "name", "op", "precedence", "value")

    def __init__(
        self,
        value: float,
        precedence: int = _ATOM,
        name: str | None = None,  # a named input; None for a constant or a computed quantity
        op: str | None = None,  # "+", "-", "*", "/", or a function: "max", "ceil"
        args: tuple[Quantity, ...] = (),
    ) -> None:
        self.value = value
        self.precedence = precedence
        self.name = name
        self.op = op
        self.args = args
        self._symbolic: str | None = None
        self._numeric: str | None = None

    @classmethod
    def named(cls, name: str, value: float) -> Quantity:
        return cls(float(value), name=name)

    @classmethod
    def constant(cls, value: float) -> Quantity:
        return cls(float(value))

    def _binary(self, op: str, other: Quantity, value: float) -> Quantity:
        precedence = _SUM if op in "+-" else _PRODUCT
        return Quantity(value, precedence, op=op, args=(self, other))

    def __add__(self, other: Quantity) -> Quantity:
        return self._binary("+", other, self.value + other.value)

    def __sub__(self, other: Quantity) -> Quantity:
        return self._binary("-", other, self.value - other.value)

    def __mul__(self, other: Quantity) -> Quantity:
        return self._binary("*", other, self.value * other.value)

    def __truediv__(self, other: Quantity) -> Quantity:
        return self._binary("/", other, self.value / other.value)

    def ceil(self) -> Quantity:
        return Quantity(float(math.ceil(self.value)), op="ceil", args=(self,))

    def at_least(self, other: Quantity) -> Quantity:
        """The larger of the two: max(self, other)."""
        return Quantity(max(self.value, other.value), op="max", args=(self, other))

    def _text(self, symbolic: bool) -> str:
        if self.op is None:
            return self.name if symbolic and self.name else _number(self.value)
        if self.op not in _OPERANDS:
            return f"{self.op}({', '.join(a._text(symbolic) for a in self.args)})"
        (left, right), (left_min, right_min) = self.args, _OPERANDS[self.op]
        return (
            f"{left._operand(left_min, symbolic)} {self.op} {right._operand(right_min, symbolic)}"
        )

    def _operand(self, least: int, symbolic: bool) -> str:
        text = self._text(symbolic)
        return f"({text})" if self.precedence < least else text

    @property
    def symbolic(self) -> str:
        if self._symbolic is None:
            self._symbolic = self._text(symbolic=True)
        return self._symbolic

    @property
    def numeric(self) -> str:
        if self._numeric is None:
            self._numeric = self._text(symbolic=False)
        return self._numeric


def total(quantities: list[Quantity]) -> Quantity:
    result = quantities[0]
    for quantity in quantities[1:]:
        result = result + quantity
    return result
