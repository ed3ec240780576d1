"""What a conversion process costs beyond the conversion: it must not run the worker's
``__main__`` again, nor import the readers' libraries again (the fork server has them)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from pipelines.engine.isolation import run_isolated

ROOT = Path(__file__).resolve().parents[2]


def imported(names: list[str]) -> dict[str, bool]:
    return {n: n in sys.modules for n in names}


def test_a_child_has_the_readers_libraries_from_the_fork_server() -> None:
    names = ["docx", "pptx", "openpyxl", "pipelines.engine.document", "fsspec.implementations.local"]
    assert run_isolated(imported, names, timeout_s=60, memory_mb=0) == dict.fromkeys(names, True)


def test_a_child_does_not_run_the_parents_main_module_again(tmp_path: Path) -> None:
    # ``python -m api.cli.main worker`` is the worker's __main__: a forkserver child would run such a
    # module again (as __mp_main__) before every document
    marker = tmp_path / "ran"
    (tmp_path / "overhead_main_probe.py").write_text(textwrap.dedent(f"""
        import os
        with open({str(marker)!r}, "a") as fh:
            fh.write(str(os.getpid()) + "\\n")
        if __name__ == "__main__":
            from pipelines.engine import isolation
            isolation.start()
            child = isolation.run_isolated(os.getpid, timeout_s=60, memory_mb=0)
            assert child != os.getpid()
            print("child", child)
    """))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "overhead_main_probe"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "child" in done.stdout
    assert len(marker.read_text().split()) == 1  # the parent ran it; the child did not


def embedding_ready() -> tuple[int, int]:
    from pipelines.stages import embed

    return embed._tokenizer.cache_info().currsize, embed._checked.cache_info().currsize


def test_a_child_has_the_embedding_tokenizer_and_the_model_check_from_the_fork_server() -> None:
    assert run_isolated(embedding_ready, timeout_s=60, memory_mb=0) == (1, 1)
