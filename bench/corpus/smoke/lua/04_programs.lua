-- small programs: JSON round trip, n-queens, sieve, word frequency, memoization
local json = {}
function json.encode(v)
  local t = type(v)
  if t == "table" then
    if #v > 0 or next(v) == nil then
      local out = {}
      for i = 1, #v do out[i] = json.encode(v[i]) end
      return "[" .. table.concat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = string.format("%q:%s", k, json.encode(v[k])) end
    return "{" .. table.concat(out, ",") .. "}"
  elseif t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
  elseif t == "number" then
    return math.type(v) == "integer" and tostring(v) or string.format("%.14g", v)
  else
    return tostring(v)
  end
end
function json.decode(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local value
  local function str()
    local res, i = {}, pos + 1
    while true do
      local c = s:sub(i, i)
      if c == '"' then pos = i + 1; return table.concat(res) end
      if c == "\\" then
        local e = s:sub(i + 1, i + 1)
        if e == "u" then res[#res + 1] = utf8.char(tonumber(s:sub(i + 2, i + 5), 16)); i = i + 6
        else res[#res + 1] = ({n = "\n", t = "\t", ['"'] = '"', ["\\"] = "\\"})[e]; i = i + 2 end
      else res[#res + 1] = c; i = i + 1 end
    end
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local obj = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1; return obj end
      repeat
        ws(); local k = str(); ws(); assert(s:sub(pos, pos) == ":"); pos = pos + 1
        obj[k] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
      until d == "}"
      return obj
    elseif c == "[" then
      local arr = {}
      pos = pos + 1; ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1; return arr end
      repeat
        arr[#arr + 1] = value(); ws()
        local d = s:sub(pos, pos); pos = pos + 1
      until d == "]"
      return arr
    elseif c == '"' then return str()
    elseif s:find("^true", pos) then pos = pos + 4; return true
    elseif s:find("^false", pos) then pos = pos + 5; return false
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      pos = pos + #num
      return math.tointeger(tonumber(num)) or tonumber(num)
    end
  end
  return value()
end
local doc = {name = "corpus", list = {1, 2.5, -3, "four", {five = 5}}, nested = {deep = {deeper = {true, false}}},
             text = 'quote " and \\ backslash\nnewline'}
local enc = json.encode(doc)
print(enc)
local dec = json.decode(enc)
print(json.encode(dec) == enc, dec.list[5].five, dec.text == doc.text)

local function queens(n)
  local count, cols, d1, d2 = 0, {}, {}, {}
  local first
  local board = {}
  local function place(r)
    if r > n then
      count = count + 1
      if not first then first = table.concat(board, " ") end
      return
    end
    for c = 1, n do
      if not cols[c] and not d1[r + c] and not d2[r - c + n] then
        cols[c], d1[r + c], d2[r - c + n], board[r] = true, true, true, c
        place(r + 1)
        cols[c], d1[r + c], d2[r - c + n] = nil, nil, nil
      end
    end
  end
  place(1)
  return count, first
end
for n = 4, 8 do print("queens", n, queens(n)) end

local function sieve(n)
  local is = {}
  for i = 2, n do is[i] = true end
  for i = 2, math.floor(math.sqrt(n)) do
    if is[i] then for j = i * i, n, i do is[j] = false end end
  end
  local primes = {}
  for i = 2, n do if is[i] then primes[#primes + 1] = i end end
  return primes
end
local primes = sieve(100000)
print("primes", #primes, primes[#primes], primes[1000])

local text = [[It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity,
it was the season of Light, it was the season of Darkness, it was the spring of hope]]
local freq = {}
for w in text:lower():gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
local words = {}
for w, n in pairs(freq) do words[#words + 1] = {w, n} end
table.sort(words, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
for i = 1, 6 do io.write(words[i][1], "=", words[i][2], " ") end print()

local memo = setmetatable({}, {__mode = "v"})
local function fib(n)
  if n < 2 then return n end
  if memo[n] then return memo[n] end
  local v = fib(n - 1) + fib(n - 2)
  memo[n] = v
  return v
end
print("fib", fib(80), fib(90))
local acc = 0
for i = 1, 300000 do acc = (acc * 31 + i) % 1000000007 end
print("hash loop", acc)
local t = {}
for i = 1, 50000 do t[i] = (i * 7919) % 50021 end
table.sort(t)
local okSorted = true
for i = 2, #t do if t[i - 1] > t[i] then okSorted = false end end
print("sorted", okSorted, t[1], t[25000], t[50000])
io.write(string.format("%s %d %s\n", "io.write", 12, tostring(nil)))
io.stdout:write("stdout:write ", 1.5, "\n")
print(os.getenv("FMERGE_NOT_SET"), type(os.time()), type(os.clock()), os.date("!%Y-%m-%d %H:%M:%S", 86400 * 365))
