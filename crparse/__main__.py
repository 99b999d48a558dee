from crparse.cli.main import main

raise SystemExit(main())
