# SPDX-License-Identifier: BSD-2-Clause
"""The parsed .x file: definitions in file order, with names resolved."""
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


class XdrError(Exception):
    """An error in the .x file, or a construct the tool does not handle."""


@dataclass
class Value:
    """A constant as written (C expression) and its resolved number."""
    text: str
    num: int


@dataclass
class Decl:
    """One declaration.  kind: plain, fixed ([n]), var (<n>), opt (*), void.
    type: a builtin key (see ctypes.BUILTINS) or a defined type's name.
    size: the [n] or <n>; None for <> (no maximum) and for the others."""
    name: Optional[str]
    type: str
    kind: str
    size: Optional[Value] = None
    ddp: bool = False


@dataclass
class Const:
    name: str
    value: Value


@dataclass
class Enum:
    name: str
    members: List[Tuple[str, Value]]


@dataclass
class Struct:
    name: str
    fields: List[Decl]


@dataclass
class Union:
    name: str
    disc: Decl
    arms: List[Tuple[List[Value], Decl]]
    default: Optional[Decl] = None


@dataclass
class Typedef:
    name: str
    decl: Decl


@dataclass
class Proc:
    name: str
    num: int
    res: str
    arg: str


@dataclass
class Version:
    name: str
    num: int
    procs: List[Proc] = field(default_factory=list)


@dataclass
class Program:
    name: str
    num: int
    versions: List[Version] = field(default_factory=list)


@dataclass
class Pass:
    """A % line, without the %."""
    text: str


@dataclass
class Spec:
    """A whole .x file (with its #includes), plus the types of the files it
    imports (known by name, generated elsewhere)."""
    defs: list
    types: dict = field(default_factory=dict)      # name -> Enum/Struct/...
    consts: dict = field(default_factory=dict)     # name -> int
    imported: set = field(default_factory=set)     # type names from imports
    import_headers: List[str] = field(default_factory=list)
    library_consts: dict = field(default_factory=dict)  # used, from libtirpc
