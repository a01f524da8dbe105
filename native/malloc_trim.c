/*
 * malloc_trim(0) for Node (src/passwords/hash-memory.ts): gives the free memory at the top of glibc's
 * main arena back to the system. Node has no API for it. Elsewhere than glibc it does nothing and says so.
 */
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#ifdef __GLIBC__
  napi_get_boolean(env, malloc_trim(0) != 0, &result);
#else
  napi_get_null(env, &result);
#endif
  return result;
}

NAPI_MODULE_INIT() {
  napi_value trim;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", trim) != napi_ok) return NULL;
  return exports;
}
