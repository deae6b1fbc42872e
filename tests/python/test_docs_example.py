"""docs/python.md's worked example, as written there, on three sample files."""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "python.md")


def test_the_worked_example_runs(tmp_path):
    text = open(DOC, encoding="utf-8").read()
    example = text[text.index("## A worked example"):]
    code = re.search(r"```python\n(.*?)```", example, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    folder = tmp_path / "captures"
    folder.mkdir()
    for name in ("rand1_short.bin", "rand4_short.bin", "rand8_short.bin"):
        shutil.copy(os.path.join(os.environ["EA_IID_SAMPLES"], name), folder / name)
    out = subprocess.run([sys.executable, str(script), str(folder), str(tmp_path)], capture_output=True, text=True,
                         env=dict(os.environ, MPLBACKEND="Agg"))
    assert out.returncode == 0, out.stderr
    assert "3 sources" in out.stdout
    lines = (tmp_path / "sources.csv").read_text().splitlines()
    assert lines[0] == "file,verdict,min_entropy_bits_per_sample" and len(lines) == 4
    assert (tmp_path / "sources.png").stat().st_size > 10000
