from crparse.cli.main import run

raise SystemExit(run())
