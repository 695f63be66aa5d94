-- fmerge speed benchmark, Lua TIMING workload (a different mix from lua_train.lua).
-- Sorts with comparators, string building, table iteration (pairs/ipairs), closures,
-- coroutines (generators), metatables (__index, __add, __lt, __len), string.rep/find/upper.
local N = tonumber(arg and arg[1]) or 1
local seed = 777
local function rnd(m) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m end
local Vec = {}
Vec.__index = Vec
Vec.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, Vec) end
Vec.__lt = function(a, b) return a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y end
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end
local Default = setmetatable({}, {__index = function(t, k) return #k end})
local out = {}
for rep = 1, N do
  -- records sorted with a comparator on two keys
  local recs = {}
  for i = 1, 8000 do recs[i] = {name = "n" .. rnd(500), age = rnd(90), id = i} end
  table.sort(recs, function(a, b)
    if a.name ~= b.name then return a.name < b.name end
    return a.id > b.id
  end)
  -- vectors sorted through __lt, summed through __add
  local vs = {}
  for i = 1, 4000 do vs[i] = Vec.new(rnd(1000) - 500, rnd(1000) - 500) end
  table.sort(vs)
  local sum = Vec.new(0, 0)
  for _, v in ipairs(vs) do sum = sum + v end
  -- string building and searching
  local b = {}
  for i = 1, 5000 do b[#b + 1] = ("x"):rep(i % 7) .. tostring(i * 3) end
  local s = table.concat(b, "|"):upper()
  local cnt, pos = 0, 1
  while true do
    local p = s:find("XX", pos, true)
    if not p then break end
    cnt, pos = cnt + 1, p + 2
  end
  -- hash tables and pairs
  local h = {}
  for i = 1, 20000 do local k = "k" .. rnd(3000); h[k] = (h[k] or 0) + 1 end
  local hs = 0
  for k, v in pairs(h) do hs = hs + v * #k + Default[k] end
  -- closures
  local fs = {}
  for i = 1, 3000 do fs[i] = function(x) return x * i + recs[(i % #recs) + 1].age end end
  local cs = 0
  for i = 1, #fs do cs = cs + fs[i](i) end
  -- coroutine generator pipeline
  local gen = coroutine.wrap(function() for i = 1, 8000 do coroutine.yield(i * i % 97) end end)
  local filt = coroutine.wrap(function()
    for v in gen do if v % 2 == 0 then coroutine.yield(v) end end
    coroutine.yield(nil)
  end)
  local gs = 0
  while true do local v = filt(); if not v then break end; gs = gs + v end
  out[#out + 1] = string.format("%s %d %d %d %d %d %d", recs[1].name, sum.x, sum.y, cnt, hs, cs, gs)
end
print(out[1]); print(out[#out]); print(#out)
