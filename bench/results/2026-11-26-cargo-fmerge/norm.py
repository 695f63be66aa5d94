import json,sys
def norm(x):
    if isinstance(x, dict): return {k: norm(v) for k, v in x.items()}
    if isinstance(x, list): return sorted((norm(v) for v in x), key=lambda v: json.dumps(v, sort_keys=True))
    return x
print(json.dumps(norm(json.load(sys.stdin)), sort_keys=True))
