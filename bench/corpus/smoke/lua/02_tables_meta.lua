-- tables, sorting, closures, varargs, metatables, OOP, goto, integer/float math
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end
local function dump(t, indent)
  indent = indent or ""
  for _, k in ipairs(sorted_keys(t)) do
    local v = t[k]
    if type(v) == "table" then print(indent .. tostring(k) .. ":"); dump(v, indent .. "  ")
    else print(indent .. tostring(k) .. " = " .. tostring(v)) end
  end
end

local t = {}
for i = 1, 20 do table.insert(t, (i * 37) % 23) end
table.insert(t, 1, 100)
print(table.remove(t), table.remove(t, 1), #t, table.concat(t, " "))
table.sort(t)
print(table.concat(t, " "))
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, " "))
print(table.unpack({1, 2, 3, nil, 5}, 1, 5))
print(table.concat(table.move({1, 2, 3, 4, 5}, 2, 4, 1, {}), ","), select("#", 1, nil, 3), select(-1, "a", "b"))
local packed = table.pack(1, nil, 3)
print(packed.n, packed[1], packed[2], packed[3])

-- closures
local function counter(start)
  local n = start
  return function(step) n = n + (step or 1); return n end
end
local c1, c2 = counter(0), counter(100)
print(c1(), c1(), c1(5), c2(), c1())
local fns = {}
for i = 1, 5 do fns[i] = function() return i * i end end
print(fns[1](), fns[3](), fns[5]())
local function sum(...)
  local s = 0
  for _, v in ipairs({...}) do s = s + v end
  return s, select("#", ...)
end
print(sum(1, 2, 3, 4.5))

-- metatables
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
Vec.__add = function(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
Vec.__sub = function(a, b) return Vec.new(a.x - b.x, a.y - b.y) end
Vec.__mul = function(a, k) return Vec.new(a.x * k, a.y * k) end
Vec.__unm = function(a) return Vec.new(-a.x, -a.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a:len2() < b:len2() end
Vec.__le = function(a, b) return a:len2() <= b:len2() end
Vec.__len = function(a) return 2 end
Vec.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
Vec.__concat = function(a, b) return tostring(a) .. tostring(b) end
Vec.__call = function(self, k) return self[k] end
function Vec:len2() return self.x * self.x + self.y * self.y end
local a, b = Vec.new(1, 2), Vec.new(3, -4)
print(tostring(a + b), tostring(a - b), tostring(a * 3), tostring(-a), a == Vec.new(1, 2), a < b, b <= a, #a, a .. b, a("y"))

local log = {}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k; return k .. "!" end,
  __newindex = function(t, k, v) log[#log + 1] = "set " .. k; rawset(t, k, v * 2) end,
})
proxy.a = 21
print(proxy.a, proxy.b, rawget(proxy, "b"), table.concat(log, ";"))

-- inheritance
local Animal = {}
Animal.__index = Animal
function Animal.new(name, sound) return setmetatable({name = name, sound = sound}, Animal) end
function Animal:speak() return self.name .. " says " .. self.sound end
local Dog = setmetatable({}, {__index = Animal})
Dog.__index = Dog
function Dog.new(name) local d = Animal.new(name, "woof"); return setmetatable(d, Dog) end
function Dog:fetch() return self.name .. " fetches" end
local d = Dog.new("rex")
print(d:speak(), d:fetch(), getmetatable(d) == Dog, rawequal(d, d))

-- to-be-closed variables
do
  local order = {}
  do
    local x <close> = setmetatable({}, {__close = function() order[#order + 1] = "x" end})
    local y <close> = setmetatable({}, {__close = function() order[#order + 1] = "y" end})
    order[#order + 1] = "body"
  end
  print(table.concat(order, ","))
end

-- goto, numeric for with float step, while/repeat
local out = {}
for i = 1, 3 do
  for j = 1, 3 do
    if j == 2 then goto continue end
    out[#out + 1] = i .. j
    ::continue::
  end
end
print(table.concat(out, " "))
for x = 1, 2, 0.25 do io.write(x, " ") end print()
local n, steps = 27, 0
while n ~= 1 do n = (n % 2 == 0) and n // 2 or 3 * n + 1; steps = steps + 1 end
repeat steps = steps - 100 until steps < 0
print("collatz", steps)

-- math (deterministic)
math.randomseed(42)
local r = {}
for i = 1, 8 do r[i] = math.random(1, 1000) end
print(table.concat(r, " "), math.random(0) ~= nil)
print(math.floor(3.7), math.ceil(3.2), math.abs(-4), math.max(3, 9, 1), math.min(3, 9, 1), math.fmod(7, 3), math.fmod(-7, 3))
print(string.format("%.10f %.10f %.10f %.10f", math.sin(1), math.cos(1), math.exp(1), math.log(10, 2)))
print(math.sqrt(2), math.huge, -math.huge, math.tointeger(3.0), math.tointeger(3.5), math.ult(1, -1), 0/0 ~= 0/0)
dump({z = 1, a = {c = 3, b = {2, 4}}, [1] = "one", [2] = true})

-- weak tables and the collector
local weak = setmetatable({}, {__mode = "k"})
do local key = {}; weak[key] = "v" end
collectgarbage(); collectgarbage()
local cnt = 0
for _ in pairs(weak) do cnt = cnt + 1 end
print("weak entries after gc", cnt, collectgarbage("isrunning"))
