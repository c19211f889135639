"""`niah import` and `niah export`: official files in and out at the matching stage of the pipeline.

- official annotations enter as a dataset: ``niah import mm-niah`` / ``niah import milebench`` (images are read
  in place through the manifest's ``media_root``, never copied);
- niah datasets and runs leave as official files: ``niah export mm-niah-dataset`` (annotation layout the
  official evaluation reads) and ``niah export mm-niah-responses`` (response files the official scorer reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    import_app = typer.Typer(help="Read a benchmark's official files as a niah dataset.", no_args_is_help=True)
    export_app = typer.Typer(help="Write niah datasets or runs as a benchmark's official files.",
                             no_args_is_help=True)
    app.add_typer(import_app, name="import")
    app.add_typer(export_app, name="export")

    @import_app.command("mm-niah")
    def import_mm_niah(
        annotations: Annotated[list[Path], typer.Argument(help="official <task>.jsonl annotation files")],
        images: Annotated[Path, typer.Option("--images", help="the official images folder (image paths are "
                                             "relative to it)")],
        out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    ) -> None:
        """Official MM-NIAH annotations -> a niah dataset (prompted exactly as the official evaluation)."""
        from niah.benchmarks.mm_niah.official import import_annotations

        ds = import_annotations(annotations, images, out)
        typer.echo(f"wrote {len(ds)} samples to {out} (images read in place from {ds.media_root})")

    @import_app.command("milebench")
    def import_milebench(
        dataset_dir: Annotated[Path, typer.Argument(help="a MileBench folder: {Dataset}.json + images/")],
        out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    ) -> None:
        """An official MileBench dataset folder -> a niah dataset."""
        from niah.benchmarks.milebench.official import write_milebench_dataset

        ds = write_milebench_dataset(dataset_dir, out)
        typer.echo(f"wrote {len(ds)} samples to {out} (images read in place from {ds.media_root})")

    @export_app.command("mm-niah-dataset")
    def export_mm_niah_dataset(
        dataset: Annotated[Path, typer.Argument(help="a niah MM-NIAH dataset directory")],
        out: Annotated[Path, typer.Option("--out", "-o", help="folder for annotations/ and images/")],
    ) -> None:
        """A niah MM-NIAH dataset -> the official annotation layout (context with <image>, images_list)."""
        from niah.benchmarks.mm_niah.export import export_official

        counts = export_official(dataset, out)
        typer.echo(f"wrote {sum(counts.values())} records ({', '.join(f'{k}: {v}' for k, v in counts.items())}) "
                   f"to {out}")

    @export_app.command("mm-niah-responses")
    def export_mm_niah_responses(
        run_dir: Annotated[Path, typer.Argument(help="a niah run directory on MM-NIAH data")],
        model_name: Annotated[str, typer.Option("--model-name", help="the {model} part of the file names")],
        split: Annotated[str, typer.Option("--split", help="val, test, rag-val or rag-test")] = "val",
        out: Annotated[Path, typer.Option("--out", "-o", help="folder for the response files")] = Path("."),
        dataset: Annotated[Path | None, typer.Option("--dataset", help="dataset dir instead of run.json's")] = None,
        allow_missing: Annotated[bool, typer.Option(
            "--allow-missing", help="write what was answered even if some samples have no response")] = False,
    ) -> None:
        """A niah run -> official response files {model}_{task}-{split}.jsonl, read unchanged by the official
        scorer."""
        from niah.benchmarks.mm_niah.official import write_official_responses
        from niah.metrics.scorers import read_run_json, resolve_run_dataset

        ds_path = resolve_run_dataset(run_dir, read_run_json(run_dir), dataset)
        paths = write_official_responses(run_dir, ds_path, out, model_name, split, allow_missing=allow_missing)
        for p in paths:
            typer.echo(str(p))
