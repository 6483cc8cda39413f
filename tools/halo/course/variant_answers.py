"""Writing per-student variant answers files (`./workbook internal write-variant-answers`, the
handouts, the class fixture): each student's own answers.toml, from answers' template with that
student's numbers (variants.py picks them). Apart from variants.py, which answers.py imports to
check a variant, so that the two do not import each other."""
import datetime
import shutil
from pathlib import Path

from ..core import answers, variants


def write_variant_answers(chapter, students, out, secret: str = "", force: bool = False,
                          with_key: bool = False) -> tuple:
    """Writes <out>/<student>/<folder>/answers.toml for every student and every section with
    questions; returns (the paths written, the backup folder or None). A file that exists with
    other text is replaced only with force, and then a copy goes to <out>/.halo-backups/<time>/."""
    out = Path(out)
    planned: dict[Path, str] = {}
    for student in students:
        sid = variants.check_student_id(student)
        for s in chapter.sections:
            if chapter.questions(s.id):
                planned[Path(sid) / s.folder / "answers.toml"] = answers.answers_template(
                    chapter, s.id, with_key=with_key, student=sid, secret=secret)
    changed = {rel: text for rel, text in planned.items()
               if not (out / rel).exists() or (out / rel).read_text() != text}
    existing = [rel for rel in changed if (out / rel).exists()]
    if existing and not force:
        shown = "\n  ".join(str(out / rel) for rel in existing[:10])
        more = f"\n  ... and {len(existing) - 10} more" if len(existing) > 10 else ""
        raise variants.VariantError(f"not overwriting {len(existing)} answers file(s) that differ from what would "
                           f"be written (a student's work may be in them):\n  {shown}{more}\n"
                           "Run again with --force to replace them; a backup is kept in "
                           f"{out / '.halo-backups'}/.")
    backup = None
    if existing:
        backup = out / ".halo-backups" / datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        for rel in existing:
            (backup / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out / rel, backup / rel)
    for rel, text in changed.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    return [out / rel for rel in changed], backup
