# Runs verify_signature from the README's Ruby snippet (ARGV[0]) on every case of ARGV[1].
require "json"
load ARGV[0]

JSON.parse(File.read(ARGV[1])).each do |c|
  ok = verify_signature(c["body"].unpack1("m"), c["header"], c["secret"])
  puts "#{c["name"]}\t#{[true, false].include?(ok) ? ok : "not a bool: #{ok.inspect}"}"
end
