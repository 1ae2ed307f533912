# JLD2, BSON and FileIO: saving and loading named values. The file format and the checks
# (data only, written only where the program may write) are lang/core/saving.py's; the
# macros `@save file a b` and `@load file a b` are lang/core/macros_flux.py's.

# JLD2.jldsave(file; model, opt) and jldsave(file; model = m)
jldsave(path::AbstractString; kw...) = Core.save_values(path, keys(kw), values(kw))

# FileIO.save / JLD2.save: a Dict of names to values, or names and values in turn
save(path::AbstractString, d::AbstractDict) =
    Core.save_values(path, Tuple(string(k) for k in keys(d)), Tuple(values(d)))
save(path::AbstractString, name::AbstractString, value, rest...) =
    Core.save_values(path, (name, rest[1:2:end]...), (value, rest[2:2:end]...))

# FileIO.load / JLD2.load: every value (a Dict{String,Any}), one, or several (a tuple)
load(path::AbstractString) = Core.load_values(path)
load(path::AbstractString, name::AbstractString) = Core.load_names(path, (name,))[1]
load(path::AbstractString, name::AbstractString, names::AbstractString...) =
    Core.load_names(path, (name, names...))

# BSON.bson(file, Dict(:model => m)) / bson(file; model = m); BSON.load gives Symbol keys
bson(path::AbstractString, d::AbstractDict) = save(path, d)
bson(path::AbstractString; kw...) = Core.save_values(path, keys(kw), values(kw))
BSON.load(path::AbstractString) =
    Dict{Symbol,Any}(Symbol(k) => v for (k, v) in Core.load_values(path))
