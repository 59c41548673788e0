"""An import-linter contract type that import-linter lacks: no import circles between modules.

`make lint` runs it with the others (pyproject.toml [tool.importlinter], contract_types). A circle is a group of
modules that each import the others, directly or through the group: a strongly connected group of the import
graph. import-linter's graph counts lazy imports inside functions and imports under `if TYPE_CHECKING:`, so a
circle cannot hide in either; a module that must name its caller's type names it by a Protocol instead.

import-linter's own `acyclic_siblings` contract is a different rule: it also flags packages whose modules import
each other's siblings in both directions (planner.costs -> planner.scale.spot and planner.scale -> planner.costs)
though no module imports itself back.

Here, not in planner/: this module imports import-linter, a development tool that the app never installs.
"""

from __future__ import annotations

from collections import deque

import grimp
from importlinter import Contract, ContractCheck, fields, output


class NoImportCirclesContract(Contract):
    """No module of `containers` imports itself back, through any chain of modules."""

    type_name = "no_import_circles"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        circles = import_circles(graph, [str(name) for name in self.containers])  # type: ignore[attr-defined]
        chains = [closing_chain(graph, circle) for circle in circles]
        sizes = {circle[0]: len(circle) for circle in circles}
        return ContractCheck(kept=not circles, metadata={"circles": chains, "sizes": sizes})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for chain in check.metadata["circles"]:
            others = check.metadata["sizes"][chain[0]] - (len(chain) - 1)
            also = f" (and {others} more modules in the same circle)" if others else ""
            output.print_error(" -> ".join(chain) + also)
            output.new_line()
        output.print("Split the shared piece into a lower module, or name the other side by a Protocol.")


def import_circles(graph: grimp.ImportGraph, containers: list[str]) -> list[list[str]]:
    """Each import circle among the modules of `containers` as its sorted members, sorted.

    A module's circle is every module it imports (directly or not) that also imports it: the intersection of
    what lies upstream and downstream of it. External packages are never in one (the graph does not read them).
    """
    own = sorted(m for m in graph.modules if m.split(".")[0] in containers)
    placed: set[str] = set()
    circles = []
    for module in own:
        if module in placed:
            continue
        circle = graph.find_upstream_modules(module) & graph.find_downstream_modules(module)
        if circle:
            members = sorted(circle | {module})
            placed.update(members)
            circles.append(members)
    return circles


def closing_chain(graph: grimp.ImportGraph, circle: list[str]) -> list[str]:
    """The shortest chain of direct imports inside `circle` from its first member back to itself."""
    start, inside = circle[0], set(circle)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for imported in sorted(graph.find_modules_directly_imported_by(module) & inside):
            if imported == start:
                chain = [module]
                while chain[-1] != start:
                    chain.append(came_from[chain[-1]])
                return [*reversed(chain), start]
            if imported not in came_from:
                came_from[imported] = module
                queue.append(imported)
    return circle  # not reached: every member of a circle leads back to each other
