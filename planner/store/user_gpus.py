"""The user's own GPU types (ones the catalog lacks), kept as the JSON of planner.gpus.GpuSpec."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from planner import gpus
from planner.errors import UserError
from planner.messages import msg
from planner.store.connection import utc_now_iso
from planner.store.database import Repository, guarded
from planner.store.jsontext import json_ready
from planner.store.quotes import GpuResolver
from planner.store.rows import JsonValue

_SPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(gpus.GpuSpec))


class UserGpus(Repository):
    def add(self, spec: gpus.GpuSpec | Mapping[str, object], replace: bool = False) -> str:
        """Store a GPU type the catalog lacks (a GpuSpec or a dict of its fields); returns its id."""
        data: dict[str, JsonValue] = json_ready(spec)
        data["user_defined"] = True
        gpu_id = str(data.get("id") or "").strip()
        if not gpu_id:
            raise UserError.of(msg("error.user_gpu_needs_id"))
        data["id"] = gpu_id
        gpus.check_user_gpu(spec_from_json(data))  # its fields, then sizes and TFLOPS a plan can divide by
        if gpu_id in gpus.load_catalog():
            raise UserError.of(msg("error.user_gpu_in_catalog", gpu_id=gpu_id))
        now = utc_now_iso()

        def work() -> str:
            exists = self._conn.execute("SELECT 1 FROM user_gpus WHERE id = ?", [gpu_id]).fetchone()
            if exists and not replace:
                raise UserError.of(msg("error.user_gpu_exists", gpu_id=gpu_id))
            self._conn.execute(
                "INSERT INTO user_gpus (id, spec_json, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) "
                "DO UPDATE SET spec_json = excluded.spec_json, updated_at = excluded.updated_at",
                [gpu_id, json.dumps(data), now, now],
            )
            return gpu_id

        return self._db.write(work)

    @guarded
    def all(self) -> list[gpus.GpuSpec]:
        """The user's GPU types, by id."""
        rows = self._conn.execute("SELECT spec_json FROM user_gpus ORDER BY id").fetchall()
        return [spec_from_json(json.loads(row[0])) for row in rows]

    def delete(self, gpu_id: str) -> dict[str, JsonValue]:
        """Remove one of the user's GPU types; returns its stored fields."""

        def work() -> dict[str, JsonValue]:
            row = self._conn.execute("SELECT spec_json FROM user_gpus WHERE id = ?", [gpu_id]).fetchone()
            if not row:
                raise UserError.of(msg("error.user_gpu_missing", gpu_id=gpu_id))
            self._conn.execute("DELETE FROM user_gpus WHERE id = ?", [gpu_id])
            stored: dict[str, JsonValue] = json.loads(row[0])
            return stored

        return self._db.write(work)

    def resolver(self) -> GpuResolver:
        """Catalog lookup that also knows the user's own GPU types."""
        return GpuResolver(self.all())


def spec_from_json(data: Mapping[str, JsonValue]) -> gpus.GpuSpec:
    """GpuSpec(**data) with JSON lists turned back into tuples; UserError for unknown or missing fields."""
    unknown = sorted(set(data) - _SPEC_FIELDS)
    if unknown:
        raise UserError.of(msg("error.user_gpu_unknown_fields", fields=", ".join(unknown)))
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    try:
        return gpus.GpuSpec(**values)
    except TypeError as exc:
        raise UserError.of(msg("error.user_gpu_incomplete", detail=str(exc))) from None
