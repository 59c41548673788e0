"""Saved plans: a name, the Plan page's inputs and a summary of its results, both kept as JSON objects."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping

from planner.errors import UserError
from planner.messages import msg
from planner.store.connection import utc_now_iso
from planner.store.database import Repository, guarded
from planner.store.jsontext import dumps
from planner.store.rows import PlanSummary, SavedPlan

MAX_PLAN_NAME_CHARS = 200


class Plans(Repository):
    def save(self, name: str, inputs: Mapping[str, object], results: Mapping[str, object]) -> int:
        """Store a new plan; returns its id."""
        now = utc_now_iso()
        payload = [_plan_name(name), dumps(inputs), dumps(results), now, now]

        def work() -> int:
            cursor = self._conn.execute(
                "INSERT INTO plans (name, inputs_json, results_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                payload,
            )
            return int(cursor.lastrowid or 0)

        return self._db.write(work)

    def update(self, plan_id: int, inputs: Mapping[str, object], results: Mapping[str, object]) -> None:
        payload = [dumps(inputs), dumps(results), utc_now_iso(), int(plan_id)]
        sql = "UPDATE plans SET inputs_json = ?, results_json = ?, updated_at = ? WHERE id = ?"
        self._db.write(lambda: _require_changed(self._conn.execute(sql, payload), plan_id))

    @guarded
    def all(self) -> list[PlanSummary]:
        """Every saved plan, the last changed first."""
        rows = self._conn.execute(
            "SELECT id, name, created_at, updated_at FROM plans ORDER BY updated_at DESC, id DESC"
        )
        return [{"id": id_, "name": name, "created_at": created, "updated_at": updated}
                for id_, name, created, updated in rows]  # fmt: skip

    @guarded
    def get(self, plan_id: int) -> SavedPlan:
        row = self._conn.execute(
            "SELECT id, name, inputs_json, results_json, created_at, updated_at FROM plans WHERE id = ?",
            [int(plan_id)],
        ).fetchone()
        if not row:
            raise UserError.of(msg("error.plan_missing", plan_id=str(plan_id)))
        id_, name, inputs, results, created_at, updated_at = row
        return {"id": id_, "name": name, "inputs": json.loads(inputs), "results": json.loads(results),
                "created_at": created_at, "updated_at": updated_at}  # fmt: skip

    def rename(self, plan_id: int, name: str) -> None:
        payload = [_plan_name(name), utc_now_iso(), int(plan_id)]
        sql = "UPDATE plans SET name = ?, updated_at = ? WHERE id = ?"
        self._db.write(lambda: _require_changed(self._conn.execute(sql, payload), plan_id))

    def delete(self, plan_id: int) -> None:
        sql = "DELETE FROM plans WHERE id = ?"
        self._db.write(lambda: _require_changed(self._conn.execute(sql, [int(plan_id)]), plan_id))


def _require_changed(cursor: sqlite3.Cursor, plan_id: int) -> None:
    if cursor.rowcount == 0:
        raise UserError.of(msg("error.plan_missing", plan_id=str(plan_id)))


def _plan_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise UserError.of(msg("error.plan_name_empty"))
    if len(name) > MAX_PLAN_NAME_CHARS:
        raise UserError.of(msg("error.plan_name_too_long", limit=MAX_PLAN_NAME_CHARS))
    return name
