/* gst-opencl: constant tables that pair a value (an enum, mostly) with its name and perhaps
 * more, looked up by either.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cstddef>
#include <cstring>

namespace gst_opencl {

/* The entry of `table` whose `key` member equals `value`; nullptr when none does. */
template <typename Entry, std::size_t N, typename Key>
const Entry *
entry_with (const Entry (&table)[N], Key Entry::*key, const Key & value)
{
  for (const Entry & entry : table)
    if (entry.*key == value)
      return &entry;
  return nullptr;
}

/* The entry of `table` whose `name` member is `name`; nullptr when none is (or `name` is
 * NULL). */
template <typename Entry, std::size_t N>
const Entry *
entry_named (const Entry (&table)[N], const char *name)
{
  if (!name)
    return nullptr;
  for (const Entry & entry : table)
    if (std::strcmp (entry.name, name) == 0)
      return &entry;
  return nullptr;
}

/* A value and its name, for name_of (). */
template <typename Value>
struct NamedValue
{
  Value value;
  const char *name;
};

/* The name `table` gives `value`; `otherwise` when it gives none. */
template <typename Value, std::size_t N>
const char *
name_of (const NamedValue<Value> (&table)[N], Value value, const char *otherwise)
{
  const NamedValue<Value> *entry = entry_with (table, &NamedValue<Value>::value, value);
  return entry ? entry->name : otherwise;
}

}  // namespace gst_opencl
