#include "results/src/h5.hpp"

#include <algorithm>
#include <thread>

namespace meshbench::results::h5 {

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw Error("HDF5 call failed: " + what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw Error("HDF5 call failed: " + what);
}

void Handle::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE: H5Fclose(id_); break;
    case H5I_GROUP: H5Gclose(id_); break;
    case H5I_DATASET: H5Dclose(id_); break;
    case H5I_DATASPACE: H5Sclose(id_); break;
    case H5I_DATATYPE: H5Tclose(id_); break;
    case H5I_ATTR: H5Aclose(id_); break;
    case H5I_GENPROP_LST: H5Pclose(id_); break;
    default: break;
  }
  id_ = H5I_INVALID_HID;
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}
QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

Handle vlen_string_type() {
  Handle t(check(H5Tcopy(H5T_C_S1), "H5Tcopy"));
  check_status(H5Tset_size(t, H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(t, H5T_CSET_UTF8), "H5Tset_cset");
  return t;
}

namespace {

Handle scalar_space() { return Handle(check(H5Screate(H5S_SCALAR), "H5Screate")); }

Handle replace_attribute(hid_t object, const std::string& name, hid_t type) {
  if (H5Aexists(object, name.c_str()) > 0) check_status(H5Adelete(object, name.c_str()), "H5Adelete " + name);
  const Handle space = scalar_space();
  return Handle(check(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate " + name));
}

Handle open_attribute(hid_t object, const std::string& name) {
  return Handle(check(H5Aopen(object, name.c_str(), H5P_DEFAULT), "attribute '" + name + "'"));
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  const Handle type = vlen_string_type();
  const Handle attr = replace_attribute(object, name, type);
  const char* p = value.c_str();
  check_status(H5Awrite(attr, type, &p), "H5Awrite " + name);
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  const Handle attr = replace_attribute(object, name, H5T_NATIVE_INT64);
  check_status(H5Awrite(attr, H5T_NATIVE_INT64, &value), "H5Awrite " + name);
}

void write_attribute(hid_t object, const std::string& name, double value) {
  const Handle attr = replace_attribute(object, name, H5T_NATIVE_DOUBLE);
  check_status(H5Awrite(attr, H5T_NATIVE_DOUBLE, &value), "H5Awrite " + name);
}

bool has_attribute(hid_t object, const std::string& name) { return H5Aexists(object, name.c_str()) > 0; }

namespace {

// An attribute meshbench reads holds one value no larger than the file: a damaged dataspace would
// make H5Aread write several values into one, a damaged string size allocate gigabytes (found by
// fuzzing: an out-of-memory).
Handle single_attribute(hid_t object, const std::string& name) {
  Handle attr = open_attribute(object, name);
  const Handle space(check(H5Aget_space(attr), "H5Aget_space " + name));
  if (H5Sget_simple_extent_npoints(space) != 1) throw Error("attribute '" + name + "' holds more than one value");
  const Handle type(check(H5Aget_type(attr), "H5Aget_type " + name));
  const Handle file(check(H5Iget_file_id(attr), "H5Iget_file_id " + name));
  hsize_t file_size = 0;
  check_status(H5Fget_filesize(file, &file_size), "H5Fget_filesize");
  if (H5Tget_size(type) > file_size) throw Error("attribute '" + name + "' claims more bytes than the file holds");
  return attr;
}

}  // namespace

std::string read_string_attribute(hid_t object, const std::string& name) {
  const Handle attr = single_attribute(object, name);
  const Handle stored(check(H5Aget_type(attr), "H5Aget_type " + name));
  if (H5Tget_class(stored) != H5T_STRING) throw Error("attribute '" + name + "' is not a string");
  if (H5Tis_variable_str(stored) > 0) {
    const Handle type = vlen_string_type();
    char* p = nullptr;
    check_status(H5Aread(attr, type, &p), "H5Aread " + name);
    std::string s = p != nullptr ? p : "";
    H5free_memory(p);
    return s;
  }
  std::string s(H5Tget_size(stored), '\0');
  check_status(H5Aread(attr, stored, s.data()), "H5Aread " + name);
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  const Handle attr = single_attribute(object, name);
  std::int64_t v = 0;
  check_status(H5Aread(attr, H5T_NATIVE_INT64, &v), "H5Aread " + name);
  return v;
}

double read_double_attribute(hid_t object, const std::string& name) {
  const Handle attr = single_attribute(object, name);
  double v = 0;
  check_status(H5Aread(attr, H5T_NATIVE_DOUBLE, &v), "H5Aread " + name);
  return v;
}

namespace {

herr_t note_lock_refusal(unsigned /*depth*/, const H5E_error2_t* error, void* refused) {
  if (error->min_num == H5E_CANTLOCKFILE) *static_cast<bool*>(refused) = true;
  return 0;
}

// Whether the call that just failed was refused a file lock (the error stack says so).
bool lock_was_refused() {
  bool refused = false;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, note_lock_refusal, &refused);
  return refused;
}

}  // namespace

OpenedFile open_existing(const std::string& path, unsigned flags, std::chrono::milliseconds patience) {
  using std::chrono::milliseconds;
  const auto give_up = std::chrono::steady_clock::now() + patience;
  milliseconds pause{2};
  for (;;) {
    const hid_t id = H5Fopen(path.c_str(), flags, H5P_DEFAULT);
    if (id >= 0) return {Handle(id), false};
    const bool locked = lock_was_refused();
    if (!locked || std::chrono::steady_clock::now() >= give_up) return {Handle(), locked};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, milliseconds{20});
  }
}

Handle open_ignoring_locks(const std::string& path, unsigned flags) {
  const Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"));
  check_status(H5Pset_file_locking(fapl, false, true), "H5Pset_file_locking");
  return Handle(check(H5Fopen(path.c_str(), flags, fapl), "open " + path + " without its lock"));
}

Handle create_group(hid_t parent, const std::string& name) {
  return Handle(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Gcreate " + name));
}

Handle open_group(hid_t parent, const std::string& name) {
  return Handle(check(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "group '" + name + "'"));
}

bool exists(hid_t parent, const std::string& path) {
  // H5Lexists needs every intermediate link to exist, so walk the path.
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && H5Lexists(parent, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

void write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values) {
  const Handle type = vlen_string_type();
  const hsize_t n = values.size();
  const Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"));
  const Handle set(check(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Dcreate " + name));
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  if (n > 0) check_status(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), "H5Dwrite " + name);
}

namespace {

// How many elements a dataset holds; an Error when its dataspace claims more than the file could
// store (meshbench writes every element, uncompressed), so that a damaged header cannot make the
// reader allocate terabytes (or a negative count turn into a huge one).
std::size_t stored_count(hid_t set, hid_t space, const std::string& name) {
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) throw Error("the dataspace of '" + name + "' is unreadable");
  const Handle type(check(H5Dget_type(set), "H5Dget_type " + name));
  const Handle file(check(H5Iget_file_id(set), "H5Iget_file_id " + name));
  hsize_t file_size = 0;
  check_status(H5Fget_filesize(file, &file_size), "H5Fget_filesize");
  const std::size_t element = std::max<std::size_t>(H5Tget_size(type), 1);
  if (static_cast<hsize_t>(n) > file_size / element) {
    throw Error("dataset '" + name + "' claims " + std::to_string(n) + " elements, more than the file holds");
  }
  return static_cast<std::size_t>(n);
}

}  // namespace

std::vector<std::string> read_strings(hid_t parent, const std::string& name) {
  const Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset '" + name + "'"));
  const Handle space(check(H5Dget_space(set), "H5Dget_space"));
  const std::size_t n = stored_count(set, space, name);
  std::vector<char*> ptrs(n, nullptr);
  const Handle type = vlen_string_type();
  if (n > 0) check_status(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), "H5Dread " + name);
  std::vector<std::string> out;
  for (char* p : ptrs) out.emplace_back(p != nullptr ? p : "");
  if (n > 0) H5Dvlen_reclaim(type, space, H5P_DEFAULT, ptrs.data());
  return out;
}

namespace {

template <typename T>
void write_array(hid_t parent, const std::string& name, const std::vector<T>& values, std::vector<hsize_t> dims, hid_t type) {
  const Handle space(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "H5Screate_simple"));
  const Handle set(check(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Dcreate " + name));
  if (!values.empty()) check_status(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "H5Dwrite " + name);
}

template <typename T>
std::vector<T> read_array(hid_t parent, const std::string& name, std::vector<hsize_t>* dims, hid_t type) {
  const Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset '" + name + "'"));
  const Handle space(check(H5Dget_space(set), "H5Dget_space"));
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> d(static_cast<std::size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space, d.data(), nullptr);
  std::vector<T> out(stored_count(set, space, name));
  if (!out.empty()) check_status(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "H5Dread " + name);
  if (dims != nullptr) *dims = d;
  return out;
}

}  // namespace

void write_ints(hid_t parent, const std::string& name, const std::vector<int>& values, std::vector<hsize_t> dims) {
  write_array(parent, name, values, std::move(dims), H5T_NATIVE_INT);
}
std::vector<int> read_ints(hid_t parent, const std::string& name, std::vector<hsize_t>* dims) {
  return read_array<int>(parent, name, dims, H5T_NATIVE_INT);
}
void write_doubles(hid_t parent, const std::string& name, const std::vector<double>& values, std::vector<hsize_t> dims) {
  write_array(parent, name, values, std::move(dims), H5T_NATIVE_DOUBLE);
}

void create_table(hid_t parent, const std::string& name, hid_t row_type, hsize_t chunk_rows) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  const Handle space(check(H5Screate_simple(1, &zero, &unlimited), "H5Screate_simple"));
  const Handle props(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"));
  check_status(H5Pset_chunk(props, 1, &chunk_rows), "H5Pset_chunk");
  const Handle set(check(H5Dcreate2(parent, name.c_str(), row_type, space, H5P_DEFAULT, props, H5P_DEFAULT), "H5Dcreate " + name));
}

namespace {

// A transfer that converts its rows (compound rows with strings all do) gets a conversion and a
// background buffer of the transfer's maximum, 1 MiB by default, zeroed, whatever the number of
// rows. A run's tables hold tens to hundreds of rows and a run appends each point's rows alone:
// that zeroing was a quarter of `compare --history`'s time (40 history files: 6.2-6.9 s, 4.6 s
// without), and two thirds of writing a results file of 84 points (a unit test's: 6.6 s).
// Buffers sized to the rows convert the same rows in one pass: twice the rows' size in memory
// covers their size on disk (a variable-length string takes 16 bytes there, a pointer's 8
// here), and HDF5 refuses a buffer smaller than one stored row, hence the floor.
Handle transfer_for_rows(hid_t row_type, std::size_t count) {
  constexpr std::size_t kDefaultConversionBuffer = std::size_t{1} << 20, kSmallestConversionBuffer = std::size_t{1} << 16;
  const std::size_t rows_bytes = 2 * H5Tget_size(row_type) * count;
  Handle transfer(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"));
  check_status(H5Pset_buffer(transfer, std::clamp(rows_bytes, kSmallestConversionBuffer, kDefaultConversionBuffer), nullptr, nullptr),
               "H5Pset_buffer");
  return transfer;
}

}  // namespace

void append_rows(hid_t parent, const std::string& name, hid_t row_type, const void* rows, std::size_t count) {
  if (count == 0) return;
  const Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset '" + name + "'"));
  hsize_t old_size = 0;
  {
    const Handle space(check(H5Dget_space(set), "H5Dget_space"));
    H5Sget_simple_extent_dims(space, &old_size, nullptr);
  }
  const hsize_t new_size = old_size + count, n = count;
  check_status(H5Dset_extent(set, &new_size), "H5Dset_extent " + name);
  const Handle file_space(check(H5Dget_space(set), "H5Dget_space"));
  check_status(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &old_size, nullptr, &n, nullptr), "H5Sselect_hyperslab");
  const Handle mem_space(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"));
  const Handle transfer = transfer_for_rows(row_type, count);
  check_status(H5Dwrite(set, row_type, mem_space, file_space, transfer, rows), "H5Dwrite " + name);
}

hsize_t table_size(hid_t parent, const std::string& name) {
  const Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset '" + name + "'"));
  const Handle space(check(H5Dget_space(set), "H5Dget_space"));
  // A table is one-dimensional; a damaged rank would make HDF5 write past `n`.
  if (H5Sget_simple_extent_ndims(space) != 1) throw Error("dataset '" + name + "' is not a table (one dimension)");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  (void)stored_count(set, space, name);  // the same bound as every other read
  return n;
}

void read_rows(hid_t parent, const std::string& name, hid_t row_type, void* rows, std::size_t count) {
  if (count == 0) return;
  const Handle set(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "dataset '" + name + "'"));
  const Handle transfer = transfer_for_rows(row_type, count);
  check_status(H5Dread(set, row_type, H5S_ALL, H5S_ALL, transfer, rows), "H5Dread " + name);
}

void reclaim_rows(hid_t row_type, void* rows, std::size_t count) {
  if (count == 0) return;
  const hsize_t n = count;
  const Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"));
  H5Dvlen_reclaim(row_type, space, H5P_DEFAULT, rows);
}

}  // namespace meshbench::results::h5
