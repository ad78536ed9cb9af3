"""How long the executor's own text work takes on a large tree: `read_page`'s renderer and `find`'s ranking over a
synthetic 5,000-node accessibility tree, no browser involved. Run `python benchmarks/bench_render.py`; it prints
the median of repeated runs, so a regression shows as a number, never as a failing test."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from browser_toolset.executor import finder, tree_text
from browser_toolset.values import AXNode

ROUNDS = 15


def synthetic_tree(sections: int = 720) -> AXNode:
    """Sections of a heading, a link and a text field: about seven nodes each, as on a long listing page."""
    return AXNode(
        "document",
        children=tuple(
            AXNode(
                "region",
                f"Section {i}",
                key=f"r{i}",
                children=(
                    AXNode("heading", f"Title {i}", key=f"h{i}", level=2, children=(AXNode("text", f"Title {i}"),)),
                    AXNode(
                        "generic",
                        children=(AXNode("link", f"Read {i}", key=f"l{i}", interactive=True),),
                    ),
                    AXNode("textbox", "Qty", key=f"t{i}", value="1", interactive=True),
                ),
            )
            for i in range(sections)
        ),
    )


def median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    tree = synthetic_tree()
    nodes = len(tree.walk())

    def ref_for(node: AXNode) -> str:
        return f"ref_{node.key}"

    render = median_ms(lambda: tree_text.render_tree(tree, ref_for=ref_for, filter=None, depth=15, max_chars=50_000))
    interactive = median_ms(
        lambda: tree_text.render_tree(tree, ref_for=ref_for, filter="interactive", depth=15, max_chars=50_000)
    )
    find = median_ms(lambda: finder.find_matches(tree, "read 500 link"))
    print(f"synthetic tree of {nodes} nodes, median of {ROUNDS} runs")
    print(f"| operation | ms |\n|---|---|\n| read_page (all visible) | {render:.1f} |")
    print(f"| read_page (interactive) | {interactive:.1f} |\n| find ranking | {find:.1f} |")


if __name__ == "__main__":
    main()
