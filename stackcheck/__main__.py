from stackcheck.cli import main

raise SystemExit(main())
