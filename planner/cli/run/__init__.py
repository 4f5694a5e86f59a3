"""What each command does, given its arguments value (`run(args) -> exit code`); every
import at the top. The dispatcher (`planner.cli.main`) imports the run module of the
command it runs, and no other."""
