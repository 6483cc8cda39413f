"""`./workbook export TARGET`: what course platforms take. gradescope: a grade run's results as
Gradescope's results.json; gradescope-autograder: the zip Gradescope grades submissions with;
classroom: GitHub Classroom's autograding workflow; classroom-result: what its steps hand
Classroom's reporter."""


def run(root, chapter, args):
    if args.target == "gradescope":
        from . import export_gradescope
        return export_gradescope.run(root, chapter, args.results, args.out, args.execution_time, args.preamble,
                                     getattr(args, "assignment", None))
    if args.target == "gradescope-autograder":
        from . import export_autograder
        # getattr: --allow-dirty is declared in cli.py; without it the export refuses dirty stubs.
        return export_autograder.run(root, args.out, getattr(args, "allow_dirty", False), chapter,
                                     getattr(args, "assignment", None), getattr(args, "course", None),
                                     getattr(args, "roster", None))
    if args.target == "classroom":
        from . import export_classroom
        return export_classroom.run(root, chapter, args.out, getattr(args, "assignment", None))
    if args.target == "classroom-result":
        from . import export_classroom
        return export_classroom.run_result(root, chapter, args.results, args.section, getattr(args, "assignment", None))
    return 2
