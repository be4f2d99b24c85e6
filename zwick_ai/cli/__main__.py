from zwick_ai.cli import run

run()
