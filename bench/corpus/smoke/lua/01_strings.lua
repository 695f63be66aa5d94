-- string library, string.format, patterns, utf8, string.pack
print(_VERSION, #arg, arg[1], arg[2])
local s = "The quick brown fox jumps over the lazy dog"
print(s:len(), s:upper(), s:lower())
print(s:sub(5, 9), s:sub(-3), s:sub(-100, 3), s:rep(2, "|"))
print(s:find("fox"), s:find("o", 20), s:find("%s(%a+)%s"), s:find(".", 1, true))
print(s:match("(%a+) (%a+)$"), s:match("()o()"))
for w in s:gmatch("%a+") do io.write(w:reverse(), ",") end print()
print(s:gsub("o", "0"), s:gsub("%w+", string.upper, 3))
print(("hello world from lua"):gsub("(%w+) (%w+)", "%2 %1"))
local t = {name = "lua", version = "5.4"}
print(("$name is $version, $missing"):gsub("%$(%w+)", t))
print(("THE (quick) fox [and] {x}"):gsub("%b()", "<>"), ("THE (quick) fox"):find("%f[%a]%a+%f[%A]", 5))
print(string.format("%5d|%-5d|%05d|%x|%X|%o|%c|%q", 42, 42, 42, 255, 255, 8, 65, 'a "quoted"\n string\0'))
print(string.format("%.3f|%10.2e|%g|%g|%g|%a", math.pi, 12345.678, 1e20, 0.1, 100, 1.0))
print(string.format("%s|%10s|%-10s|%.2s", "str", "right", "left", "truncate"))
print(string.format("%q", 1/3), string.format("%q", math.mininteger), string.format("%i", -7))
print(("x"):byte(), string.char(72, 105), ("abc"):byte(1, -1))
print(tostring(12), tostring(12.0), tostring(-0.0), 10 // 3, 10.0 // 3, 7 % -3, -7 % 3, 2^10, 7 / 2)
print(math.maxinteger, math.mininteger, math.maxinteger + 1 == math.mininteger, 1e308 * 10, -1e308 * 10)
print(tonumber("0x1p4"), tonumber("  10  "), tonumber("10", 2), tonumber("zz", 36), tonumber("1e2"), tonumber("x"))
print(math.type(1), math.type(1.0), math.type("1"), 3 | 5, 3 & 5, 3 ~ 5, ~0, 1 << 62, 256 >> 4)
print(string.pack("<i4", 100):byte(1, -1))
local packed = string.pack(">I2 s1 z d", 513, "abc", "zero", 2.5)
print(#packed, string.unpack(">I2 s1 z d", packed))
print(utf8.char(72, 228, 8364, 128512), utf8.len("häé€"), utf8.codepoint("€", 1))
for p, c in utf8.codes("aé€") do io.write(p, ":", c, " ") end print()
print(utf8.offset("aé€x", 3), utf8.charpattern)
-- string building and long strings
local parts = {}
for i = 1, 200 do parts[#parts + 1] = string.format("%03d", i * 7 % 1000) end
local big = table.concat(parts, ",")
print(#big, big:sub(1, 40), select(2, big:gsub(",", ",")))
local long = [==[
line one
line ]] two]==]
print(long, #long)
print(("%d items"):format(3), ("a,b,,c"):find(",,"), ("key = value"):match("^(%w+)%s*=%s*(%w+)$"))
