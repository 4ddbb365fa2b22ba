"""Numbers that carry their own formula, so every figure in a plan can be checked by hand.

A :class:`Quantity` holds a value, the formula in symbols (``w * P / (TP * PP)``) and the same
formula with the numbers put in (``2 * 70000000000 / (8 * 2)``). The arithmetic is written once;
the JSON report carries all three, and the numeric form evaluates to the value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

_SUM, _PRODUCT, _ATOM = 1, 2, 3


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return format(value, ".12g")


@dataclass(frozen=True)
class Quantity:
    value: float
    symbolic: str
    numeric: str
    precedence: int = _ATOM

    @classmethod
    def named(cls, name: str, value: float) -> Quantity:
        return cls(float(value), name, _number(value))

    @classmethod
    def constant(cls, value: float) -> Quantity:
        return cls(float(value), _number(value), _number(value))

    def __add__(self, other: Quantity) -> Quantity:
        return _join(self, "+", other, self.value + other.value, _SUM)

    def __sub__(self, other: Quantity) -> Quantity:
        return _join(self, "-", _wrap(other, _PRODUCT), self.value - other.value, _SUM)

    def __mul__(self, other: Quantity) -> Quantity:
        return _join(
            _wrap(self, _PRODUCT), "*", _wrap(other, _PRODUCT), self.value * other.value, _PRODUCT
        )

    def __truediv__(self, other: Quantity) -> Quantity:
        # The divisor is wrapped unless it is a single symbol: a / (b * c), never a / b * c.
        return _join(
            _wrap(self, _PRODUCT), "/", _wrap(other, _ATOM), self.value / other.value, _PRODUCT
        )

    def ceil(self) -> Quantity:
        return _call("ceil", math.ceil(self.value), self)

    def at_least(self, other: Quantity) -> Quantity:
        """The larger of the two: max(self, other)."""
        return _call("max", max(self.value, other.value), self, other)


def _wrap(quantity: Quantity, precedence: int) -> Quantity:
    if quantity.precedence >= precedence:
        return quantity
    return Quantity(quantity.value, f"({quantity.symbolic})", f"({quantity.numeric})", _ATOM)


def _join(left: Quantity, op: str, right: Quantity, value: float, precedence: int) -> Quantity:
    return Quantity(
        value,
        f"{left.symbolic} {op} {right.symbolic}",
        f"{left.numeric} {op} {right.numeric}",
        precedence,
    )


def _call(name: str, value: float, *arguments: Quantity) -> Quantity:
    return Quantity(
        float(value),
        f"{name}({', '.join(a.symbolic for a in arguments)})",
        f"{name}({', '.join(a.numeric for a in arguments)})",
    )


def total(quantities: list[Quantity]) -> Quantity:
    result = quantities[0]
    for quantity in quantities[1:]:
        result = result + quantity
    return result
