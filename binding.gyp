# The one native module of authsvc itself: malloc_trim (native/malloc_trim.c; src/passwords/hash-memory.ts).
{
  "targets": [
    {
      "target_name": "malloc_trim",
      "sources": ["native/malloc_trim.c"]
    }
  ]
}
