"""The user's JSON schema as extraction sees it: scalar fields (with their path, type and words),
arrays of objects (line items), and the all-null skeleton of the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Field:
    path: tuple[str, ...]
    schema: dict[str, Any]
    array: bool = False

    @property
    def name(self) -> str:
        return self.path[-1]

    def query(self) -> str:
        words = " ".join(p.replace("_", " ") for p in self.path)
        desc = self.schema.get("description") or self.schema.get("title") or ""
        return f"{words}: {desc}" if desc else words

    def dotted(self) -> str:
        return ".".join(self.path)


def _resolve(schema: Any, root: Any) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref.startswith("#/"):
            node = root
            for part in ref[2:].split("/"):
                node = node.get(part, {}) if isinstance(node, dict) else {}
            return _resolve(node, root)
    if isinstance(schema, dict):
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):  # Optional[X] from pydantic: the non-null branch
                branches = [b for b in schema[key] if not (isinstance(b, dict) and b.get("type") == "null")]
                if len(branches) == 1:
                    merged = {k: v for k, v in schema.items() if k != key}
                    return {**_resolve(branches[0], root), **merged}
    return schema


def _type(schema: dict[str, Any]) -> str:
    t = schema.get("type", "string")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    return t if isinstance(t, str) else "string"


@dataclass
class Records:
    """An array of objects (line items): each row of a matching table becomes one object."""

    path: tuple[str, ...]
    fields: list[Field]
    description: str = ""
    template: dict[str, Any] = field(default_factory=dict)  # one item, every value null

    def dotted(self) -> str:
        return ".".join(self.path)


def walk(schema: Any, root: Any = None, path: tuple[str, ...] = ()) -> tuple[list[Field], list[Records]]:
    """The schema's scalar leaves and arrays of scalars (fields), and its arrays of objects."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return [], []
    fields: list[Field] = []
    records: list[Records] = []
    for name, sub in (schema.get("properties") or {}).items():
        sub = _resolve(sub, root)
        if not isinstance(sub, dict):
            continue
        t = _type(sub)
        if t == "object" or "properties" in sub:
            more, recs = walk(sub, root, path + (name,))
            fields, records = fields + more, records + recs
        elif t == "array":
            items = _resolve(sub.get("items") or {}, root)
            if isinstance(items, dict) and (_type(items) == "object" or "properties" in items):
                records.append(Records(path + (name,), walk(items, root)[0], sub.get("description", ""),
                                       skeleton(items, root) or {}))
                continue
            merged = {**(items if isinstance(items, dict) else {}), "description": sub.get("description", "")}
            fields.append(Field(path + (name,), merged, array=True))
        else:
            fields.append(Field(path + (name,), sub))
    return fields, records


def fields_of(schema: Any) -> list[Field]:
    return walk(schema)[0]


def skeleton(schema: Any, root: Any = None) -> Any:
    """The schema's shape with every value null (arrays empty)."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    if _type(schema) == "object" or "properties" in schema:
        return {k: skeleton(v, root) for k, v in (schema.get("properties") or {}).items()}
    if _type(schema) == "array":
        return []
    return None
