-- an uncaught runtime error: the host prints a traceback to stderr, exit 1
local function inner(t) return t.missing.field end
local function outer() return inner({}) end
print("before the error")
outer()
print("not reached")
