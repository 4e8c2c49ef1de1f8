//===- TemporaryCache.h - A fresh, empty $BRICK_CACHE_DIR for one test ----------------===//
#ifndef BRICK_TEST_UNIT_TEMPORARYCACHE_H
#define BRICK_TEST_UNIT_TEMPORARYCACHE_H

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

/// A fresh, empty cache directory under the test's temporary folder (named after the test suite and `name`),
/// set as $BRICK_CACHE_DIR while it lives.
struct TemporaryCache {
  std::string path;
  explicit TemporaryCache(const std::string &name)
      : path(::testing::TempDir() + "/brick-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "-" + name) {
    std::filesystem::remove_all(path);
    setenv("BRICK_CACHE_DIR", path.c_str(), 1);
  }
  ~TemporaryCache() {
    unsetenv("BRICK_CACHE_DIR");
    std::filesystem::remove_all(path);
  }
  /// The files in `sub` of the cache ("" for the cache itself).
  std::vector<std::filesystem::path> entries(const std::string &sub = "") const {
    std::vector<std::filesystem::path> files;
    std::string folder = sub.empty() ? path : path + "/" + sub;
    if (std::filesystem::exists(folder))
      for (auto &entry : std::filesystem::directory_iterator(folder))
        files.push_back(entry.path());
    return files;
  }
};

#endif // BRICK_TEST_UNIT_TEMPORARYCACHE_H
