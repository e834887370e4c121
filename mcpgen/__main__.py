from mcpgen.cli.app import main

main()
