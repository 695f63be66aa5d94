-- coroutines, error handling, load, string.dump
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i, i * i) end
    return "done"
  end)
end
local g = gen(4)
for _ = 1, 5 do print(g()) end

local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  error("inside coroutine")
end)
print(coroutine.status(co), coroutine.resume(co, 1, 2))
print(coroutine.status(co), coroutine.resume(co, 10))
print(coroutine.resume(co, "x", "y"))
print(coroutine.status(co), coroutine.resume(co))
print(coroutine.isyieldable(), select(2, coroutine.running()), type(coroutine.running()))

-- producer / consumer pipeline
local function producer(items)
  return coroutine.create(function() for _, v in ipairs(items) do coroutine.yield(v) end end)
end
local function filter(src, pred)
  return coroutine.create(function()
    while true do
      local ok, v = coroutine.resume(src)
      if not v then return end
      if pred(v) then coroutine.yield(v) end
    end
  end)
end
local p = filter(producer({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), function(v) return v % 3 ~= 0 end)
local got = {}
while true do
  local ok, v = coroutine.resume(p)
  if not v then break end
  got[#got + 1] = v
end
print(table.concat(got, ","))

-- yield across pcall
local co2 = coroutine.wrap(function()
  local ok, err = pcall(function()
    coroutine.yield("yield inside pcall")
    error({code = 42})
  end)
  coroutine.yield(ok, type(err), err.code)
  return "end"
end)
print(co2()); print(co2()); print(co2())
local closed = coroutine.create(function() coroutine.yield() end)
coroutine.resume(closed)
print(coroutine.close(closed), coroutine.status(closed))

-- errors
print(pcall(error, "msg"))
print(pcall(error, "msg", 0))
print(pcall(error))
print(pcall(error, setmetatable({}, {__tostring = function() return "custom" end})))
print(select(2, pcall(function() local x = nil; return x.field end)))
print(select(2, pcall(function() return 1 + {} end)))
print(select(2, pcall(function() return #5 end)))
print(select(2, pcall(function() return ("x"):bad() end)))
print(select(2, pcall(string.rep)))
print(select(2, pcall(string.format, "%d", 1.5)))
print(select(2, pcall(setmetatable, 1, {})))
local function lvl2() error("level two", 2) end
local function caller() lvl2() end
print(pcall(caller))
print(xpcall(function() error("with handler") end, function(m) return "handled: " .. m end))
local tb = select(2, xpcall(function() local t = nil; return t[1] end, debug.traceback))
print((tb:gsub("\n.*", "")))
print(assert(1 == 1, "fine"), pcall(assert, false, "assertion message"), pcall(assert, nil))
print(select(2, pcall(function() error({1, 2, 3}) end))[3])

-- load and dump
local f = load("local a, b = ... return a * b, 'chunk'")
print(f(6, 7))
print(load("syntax error here"))
print(type(load(function() return nil end)))
local env = {x = 5}
print(load("return x", "envchunk", "t", env)())
local pieces, i = {"return ", "1 + ", "2"}, 0
print(load(function() i = i + 1; return pieces[i] end)())
local dumped = string.dump(function(a) return a * 3 + 1 end)
print(load(dumped, "bin", "b")(10), #dumped > 0)
print(pcall(load, dumped, "bin", "t"))
print(type(debug.getinfo(1)), debug.getinfo(print).what, debug.getinfo(1, "l").currentline)
local function locals() local alpha, beta = 1, 2; return debug.getlocal(1, 1), debug.getlocal(1, 2) end
print(locals())
-- deep recursion and stack overflow
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
local function inf(n) return 1 + inf(n + 1) end
local ok, msg = pcall(inf, 1)
print(ok, (msg:gsub("^.-:%d+: ", "")))
print(string.format("%s", select(2, pcall(string.rep, "x", -1))) == "", #string.rep("ab", 1000, ","))
