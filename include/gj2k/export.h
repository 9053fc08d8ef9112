/* gj2k: GJ2K_API marks what the shared library exports (the public C and C++ API); everything
 * else is built with hidden visibility. Usable from C and C++. */
#ifndef GJ2K_EXPORT_H
#define GJ2K_EXPORT_H

#if defined(_WIN32)
#if defined(GJ2K_BUILDING)
#define GJ2K_API __declspec(dllexport)
#else
#define GJ2K_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define GJ2K_API __attribute__((visibility("default")))
#else
#define GJ2K_API
#endif

#endif /* GJ2K_EXPORT_H */
