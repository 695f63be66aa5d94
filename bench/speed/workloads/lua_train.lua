-- fmerge speed benchmark, Lua TRAINING workload (used only to collect the PGO profile).
-- Mix: numeric table.sort, string.format, gsub/gmatch, coroutines, integer arithmetic.
local N = tonumber(arg and arg[1]) or 1
local seed = 12345
local function rnd(m) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % m end
local acc = 0
for rep = 1, N do
  local t = {}
  for i = 1, 20000 do t[i] = rnd(1000000) end
  table.sort(t)
  acc = acc + t[1] + t[#t]
  local parts = {}
  for i = 1, 6000 do parts[#parts + 1] = string.format("%d:%05.2f:%s", i, i / 7, "k" .. (i % 13)) end
  local s = table.concat(parts, ",")
  local s2, n = s:gsub("(%d+):", "<%1>")
  acc = acc + n + #s2
  for w in s:gmatch("k(%d+)") do acc = acc + #w end
  local co = coroutine.wrap(function()
    for i = 1, 20000 do coroutine.yield(i) end
  end)
  for i = 1, 20000 do acc = acc + co() end
  local fib = {1, 1}
  for i = 3, 90 do fib[i] = (fib[i - 1] + fib[i - 2]) % 1000003 end
  acc = acc + fib[90]
end
print("train", acc)
