"""What every tests/*_oracle.py does around its own comparison: read WHYSLOW_BINARY FIXTURES_DIR
[PUBLIC_DIR] from the command line, collect the committed fixtures it covers and those public
traces that are beside the checkout (skipped, not failed, when the corpus is absent), run the
comparison on each, print the differences and a count, and return the exit status."""
import pathlib
import sys
from decimal import Decimal


def ns(us) -> int:
    """A JSON µs value written with three decimals → integer ns, exactly."""
    return int(Decimal(str(us)) * 1000)


def run(check, fixture_dirs, public, noun, shown=40) -> int:
    """check(binary, path) -> (errors, found). fixture_dirs: folders under FIXTURES_DIR whose
    *.json.gz are checked; public: paths relative to PUBLIC_DIR; noun: what `found` counts."""
    binary, fixtures = sys.argv[1], pathlib.Path(sys.argv[2])
    paths = sorted(str(p) for d in fixture_dirs for p in (fixtures / d).glob("*.json.gz"))
    if len(sys.argv) > 3:
        corpus = pathlib.Path(sys.argv[3])
        present = [str(corpus / p) for p in public if (corpus / p).exists()]
        if not present:
            print("public corpus absent: its cases skipped")
        paths += present
    errors, found = [], 0
    for p in paths:
        e, n = check(binary, p)
        errors += e
        found += n
    for e in errors[:shown]:
        print(e)
    print(f"{len(paths)} traces, {found} {noun}, {len(errors)} differences")
    return 1 if errors else 0
