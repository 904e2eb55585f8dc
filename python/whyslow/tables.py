"""The report's tables as pandas DataFrames when pandas is installed, lists of dicts otherwise."""


def as_table(rows):
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame.from_records(rows)
