-- extract-code.lua - write the compilable code blocks of a page into files
-- (pandoc Lua filter), for docs/tools/compile-blocks.sh to compile.
--
-- A block marked ```{.cuda .compile} must be a complete translation unit
-- (its own #include "smemlab.h" or <cuda_runtime.h>). Block n of
-- docs/PAGE.md goes to CODEDIR/PAGE.blockn.cu, CODEDIR from the metadata field
-- `codedir`; a #line directive makes compiler messages name the page and
-- the block. Without `codedir` the filter does nothing. The document
-- itself is left as it is.

local count = 0

function Pandoc(doc)
  local dir = doc.meta.codedir and pandoc.utils.stringify(doc.meta.codedir)
  if not dir then return nil end
  local input = PANDOC_STATE.input_files[1] or 'stdin'
  local page = input:gsub('^.*/', ''):gsub('%.md$', '')
  doc:walk{
    CodeBlock = function(el)
      if not el.classes:includes('compile') then return nil end
      count = count + 1
      local path = string.format('%s/%s.block%d.cu', dir, page, count)
      local fh, err = io.open(path, 'w')
      if not fh then error('cannot write ' .. path .. ': ' .. tostring(err)) end
      fh:write(string.format('#line 1 "%s, compilable block %d"\n', input, count))
      fh:write(el.text, '\n')
      fh:close()
    end,
  }
  return nil
end
