-- nav.lua - site navigation for one page of the docs (pandoc Lua filter).
--
-- Reads the page list from the metadata field `pages` (docs/pages.yaml,
-- given with --metadata-file) and sets, for the template:
--   navitems   every page: url, label, current (true on this page)
--   prev, next the neighbouring pages: url, title
-- It also turns links to other pages written as `page.md#anchor` (so that
-- the markdown reads well on a code host too) into `page.html#anchor`, and
-- gives ```cuda blocks the `cpp` class so that they are highlighted (the
-- highlighter has no CUDA syntax; CUDA C++ reads well as C++).

local function stringify(v) return v and pandoc.utils.stringify(v) or nil end

local function basename(path)
  return (path:gsub('^.*/', ''):gsub('%.md$', ''))
end

local function srcdir()
  local f = PANDOC_STATE.input_files[1] or ''
  return f:match('^(.*)/[^/]*$') or '.'
end

-- The title of a page, from its YAML block (read once per page).
local titles = {}
local function page_title(file)
  if titles[file] == nil then
    local path = srcdir() .. '/' .. file .. '.md'
    local fh = io.open(path, 'r')
    if not fh then
      error('pages.yaml lists ' .. file .. ', but ' .. path .. ' does not exist')
    end
    local doc = pandoc.read(fh:read('a'), 'markdown')
    fh:close()
    titles[file] = stringify(doc.meta.title) or file
  end
  return titles[file]
end

local function is_relative(target)
  return not target:match('^%a[%w+.-]*:') and not target:match('^//')
end

function Link(el)
  if is_relative(el.target) then
    local page, rest = el.target:match('^([^#?]+)%.md(.*)$')
    if page then
      el.target = page .. '.html' .. rest
      return el
    end
  end
end

function CodeBlock(el)
  if el.classes:includes('cuda') and not el.classes:includes('cpp') then
    el.classes:insert(1, 'cpp')
    return el
  end
end

function Meta(meta)
  local pages = meta.pages
  if not pages then return nil end
  local current = basename(PANDOC_STATE.input_files[1] or '')
  local items, index = {}, nil
  for i, p in ipairs(pages) do
    local file = stringify(p.file)
    if file == current then index = i end
    items[i] = {
      url = pandoc.MetaString(file .. '.html'),
      label = pandoc.MetaString(stringify(p.label) or file),
      current = pandoc.MetaBool(file == current),
      file = file,
    }
  end
  local navitems = {}
  for i, it in ipairs(items) do
    navitems[i] = pandoc.MetaMap{url = it.url, label = it.label, current = it.current}
  end
  meta.navitems = pandoc.MetaList(navitems)
  if index then
    local function link(i)
      local it = items[i]
      return pandoc.MetaMap{url = it.url, title = pandoc.MetaString(page_title(it.file))}
    end
    if index > 1 then meta.prev = link(index - 1) end
    if index < #items then meta.next = link(index + 1) end
  end
  meta.pages = nil
  return meta
end

-- Meta first, so that Link and CodeBlock see the document afterwards.
return {{Meta = Meta}, {Link = Link, CodeBlock = CodeBlock}}
