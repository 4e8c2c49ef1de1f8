#!/usr/bin/env python3
"""Fails, naming each, where an op, type, attribute or pass of Brick's ODS has no summary or no description.

    check_ods_docs.py LLVM_TBLGEN SOURCE_ROOT [TD DIALECT]...

checks Brick's .td files, or the TD files given (DIALECT: the def their ops belong to, or - for passes).

The generated reference (`ninja mlir-doc`) is only as complete as the records: this reads them all through
`llvm-tblgen --dump-json`, the records as TableGen resolved them, rather than parsing .td text.
"""
import json
import os
import shutil
import subprocess
import sys

# (td file, the dialect def its ops, types and attributes belong to; None for pass files)
SOURCES = [
    ("dialects/Brick/BrickOps.td", "Brick_Dialect"),
    ("dialects/BrickGPU/BrickGPUOps.td", "BrickGPU_Dialect"),
    ("include/brick/Transforms/Passes.td", None),
    ("include/brick/Conversion/Passes.td", None),
]


def records(tblgen, root, td):
    # MLIR's .td files sit beside LLVM's tools: <prefix>/bin/llvm-tblgen, <prefix>/include/mlir.
    mlir_include = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(shutil.which(tblgen) or tblgen))), "include")
    out = subprocess.run([tblgen, "--dump-json", "-I", mlir_include, "-I", os.path.join(root, "dialects"),
                          "-I", os.path.join(root, "include"), os.path.join(root, td)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{tblgen} --dump-json {td} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def owner(record):
    for field in ("opDialect", "dialect"):
        if isinstance(record.get(field), dict):
            return record[field].get("def")
    return None


def main():
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    tblgen, root = sys.argv[1:3]
    given = sys.argv[3:]
    sources = [(td, None if dialect == "-" else dialect) for td, dialect in zip(given[::2], given[1::2])] or SOURCES
    missing, counted = [], {}
    for td, dialect in sources:
        data = records(tblgen, root, td)
        kinds = [("Op", "op"), ("TypeDef", "type"), ("AttrDef", "attribute")] if dialect else [("PassBase", "pass")]
        for cls, kind in kinds:
            for name in data["!instanceof"].get(cls, []):
                record = data[name]
                if dialect and owner(record) != dialect:
                    continue
                counted[kind] = counted.get(kind, 0) + 1
                label = record.get("opName") or record.get("argument") or record.get("mnemonic") or name
                for field in ("summary", "description"):
                    if not str(record.get(field) or "").strip():
                        missing.append(f"{td}: {kind} {label} ({name}) has no {field}")
    for line in missing:
        print(line)
    plural = lambda kind, count: kind if count == 1 else kind + ("es" if kind.endswith("s") else "s")
    print(", ".join(f"{count} {plural(kind, count)}" for kind, count in sorted(counted.items())) +
          f" checked; {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
