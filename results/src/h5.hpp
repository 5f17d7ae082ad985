#pragma once
// Thin RAII and helpers over HDF5's C API, private to the results module.
#include <hdf5.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace meshbench::results::h5 {

// An HDF5 call failed; the message names the call and the object.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

hid_t check(hid_t id, const std::string& what);
void check_status(herr_t status, const std::string& what);

// Owns one hid_t and closes it with the matching H5*close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT(google-explicit-constructor): reads like the C API
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Silences HDF5's own stack printing while in scope; errors surface as exceptions instead.
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

Handle vlen_string_type();

// Attributes on any object.
void write_attribute(hid_t object, const std::string& name, const std::string& value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, double value);
bool has_attribute(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);

// Opens an existing file, waiting out another process's lock. HDF5 locks a file while it is open
// (readers shared, a writer exclusive) and refuses at once when the lock is taken; a run's writer
// holds it for the milliseconds of one point and a reader (h5py, h5ls, meshbench report) for one
// read, so each side retries for up to `patience` rather than fail on the other's brief visit.
// `locked` tells, after a failure, whether the lock was still taken when the patience ran out.
struct OpenedFile {
  Handle file;
  bool locked = false;
};
OpenedFile open_existing(const std::string& path, unsigned flags, std::chrono::milliseconds patience);
// The same without taking HDF5's lock at all, for a writer that must not wait any longer.
Handle open_ignoring_locks(const std::string& path, unsigned flags);

Handle create_group(hid_t parent, const std::string& name);
Handle open_group(hid_t parent, const std::string& name);
bool exists(hid_t parent, const std::string& path);

// Whole datasets.
void write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values);
std::vector<std::string> read_strings(hid_t parent, const std::string& name);
void write_ints(hid_t parent, const std::string& name, const std::vector<int>& values, std::vector<hsize_t> dims);
std::vector<int> read_ints(hid_t parent, const std::string& name, std::vector<hsize_t>* dims = nullptr);
void write_doubles(hid_t parent, const std::string& name, const std::vector<double>& values, std::vector<hsize_t> dims);

// A compound row type built from a C struct: strings are variable-length UTF-8 (char*).
template <typename Row>
class Compound {
 public:
  Compound() : type_(check(H5Tcreate(H5T_COMPOUND, sizeof(Row)), "H5Tcreate")) {}
  Compound& add(const char* name, const char* Row::*member) { return insert(name, member, vlen_); }
  Compound& add(const char* name, std::uint64_t Row::*member) { return insert(name, member, H5T_NATIVE_UINT64); }
  Compound& add(const char* name, std::int64_t Row::*member) { return insert(name, member, H5T_NATIVE_INT64); }
  Compound& add(const char* name, std::int32_t Row::*member) { return insert(name, member, H5T_NATIVE_INT32); }
  Compound& add(const char* name, double Row::*member) { return insert(name, member, H5T_NATIVE_DOUBLE); }
  // One int64 column per element of an array member, each named by `names`.
  template <std::size_t N>
  Compound& add_each(const std::array<const char*, N>& names, std::array<std::int64_t, N> Row::*member) {
    static const Row probe{};
    const auto base =
        static_cast<std::size_t>(reinterpret_cast<const char*>((probe.*member).data()) - reinterpret_cast<const char*>(&probe));
    for (std::size_t i = 0; i < N; ++i)
      check_status(H5Tinsert(type_, names[i], base + i * sizeof(std::int64_t), H5T_NATIVE_INT64), std::string("H5Tinsert ") + names[i]);
    return *this;
  }
  hid_t type() const { return type_; }

 private:
  template <typename M>
  Compound& insert(const char* name, M Row::*member, hid_t field) {
    static const Row probe{};
    const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&(probe.*member)) - reinterpret_cast<const char*>(&probe));
    check_status(H5Tinsert(type_, name, offset, field), std::string("H5Tinsert ") + name);
    return *this;
  }
  Handle vlen_ = vlen_string_type();
  Handle type_;
};

// A chunked, extendible 1-D table of compound rows: appended as the run goes.
void create_table(hid_t parent, const std::string& name, hid_t row_type, hsize_t chunk_rows);
void append_rows(hid_t parent, const std::string& name, hid_t row_type, const void* rows, std::size_t count);
hsize_t table_size(hid_t parent, const std::string& name);
// Reads every row; the caller frees variable-length strings with reclaim_rows.
void read_rows(hid_t parent, const std::string& name, hid_t row_type, void* rows, std::size_t count);
void reclaim_rows(hid_t row_type, void* rows, std::size_t count);

}  // namespace meshbench::results::h5
