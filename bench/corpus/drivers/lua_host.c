/* fmerge benchmark corpus: minimal host program for Lua 5.4.
 *
 * The lua-src crate ships the Lua library sources but not the stand-alone
 * interpreter (lua.c), so this driver plays that role for the smoke
 * workload:   lua_host SCRIPT [ARGS...]
 * It opens the standard libraries, sets the global `arg` table like lua.c
 * (arg[0] = script, arg[1..] = ARGS), runs the script and reports an
 * uncaught error with a traceback on stderr (exit status 1). */
#include <stdio.h>
#include <stdlib.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCRIPT [ARGS...]\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "cannot create Lua state\n");
    return 1;
  }
  luaL_openlibs(L);
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");

  int status;
  lua_pushcfunction(L, traceback);
  int base = lua_gettop(L);
  status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK) {
    for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
    status = lua_pcall(L, argc - 2, 0, base);
  }
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "lua_host: %s\n", msg ? msg : "(non-string error)");
    fflush(stdout);
    lua_close(L);
    return 1;
  }
  lua_close(L);
  fflush(stdout);
  return 0;
}
