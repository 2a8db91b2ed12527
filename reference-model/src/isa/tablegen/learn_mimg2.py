# For every MIMG opcode: what LLVM prints (data dwords, address count) for each NSA size, a16 and dim, with
# dmask 0xf (and tfe for gather4, so that a successful conversion is visible), plus the default variant.
from probe import probe
from learn import split_ops
import json, re
d=json.load(open('mimg_learn.json'))
def width(tok):
    m=re.match(r'^v\[(\d+):(\d+)\]$',tok)
    if m: return int(m.group(2))-int(m.group(1))+1
    return 1 if re.match(r'^v\d+$',tok) else 0
def addrs(tok):
    if tok.startswith('['): return tok.count(',')+1
    return width(tok)
for cpu in ('gfx1013','gfx1030'):
    keys=[];c=[]
    for op,i in d[cpu].items():
        op=int(op); gather=('gather4' in i['mn'] or 'msaa_load' in i['mn'])
        atomic='_atomic_' in i['mn']
        # A probe width that differs from the default variant's (1 dword; 2 for cmpswap), so a move shows.
        dm=0xf if 'cmpswap' in i['mn'] else (0x3 if atomic else 0xf)
        i['probe_data']=5 if gather else bin(dm).count('1')
        samp=2 if len(i['toks'])>=4 else 0
        for k in range(4):
            for a16 in (0,1):
                for dim in range(8):
                    w0=0xF0000000|(op&0x7f)<<18|(op>>7)|dm<<8|dim<<3|k<<1|(1<<16 if gather else 0)
                    w1=20|10<<8|1<<16|samp<<21|a16<<30
                    keys.append((op,'st',k,a16*8+dim)); c.append([w0,w1,0x04030201,0x08070605,0x0c0b0a09])
            if True:
                # gather4: d16 with tfe asks for 3 data dwords, which no gather4 variant has; others: data at
                # v255 cannot hold more than one dword. Either way LLVM keeps its default variant.
                w0=0xF0000000|(op&0x7f)<<18|(op>>7)|(0x1 if gather else 0xf)<<8|1<<3|k<<1|(1<<16 if gather else 0)
                w1=20|(10 if gather else 255)<<8|1<<16|samp<<21|(1<<31 if gather else 0)
                keys.append((op,'def',k,0)); c.append([w0,w1,0x04030201,0x08070605,0x0c0b0a09])
    out=probe(c,cpu)
    for (op,kind,k,idx),o in zip(keys,out):
        i=d[cpu][str(op)]
        i.setdefault('st',[[[0,0] for _ in range(16)] for _ in range(4)]); i.setdefault('def',[[0,0] for _ in range(4)])
        if not o or o in ('?','CRASH'): continue
        mn,toks,mods=split_ops(o.replace('  ',' '))
        v=[width(toks[0]), addrs(toks[1])]
        if kind=='st': i['st'][k][idx]=v
        else: i['def'][k]=v
    for op,i in d[cpu].items():
        gather=('gather4' in i['mn'] or 'msaa_load' in i['mn'])
        exp=i['probe_data']
        for k in range(4):
            if i['def'][k]==[0,0]:
                fails=[e for e in i['st'][k] if e!=[0,0] and e[0]!=exp]
                if fails: i['def'][k]=fails[0]
    print(cpu,'ok')
json.dump(d,open('mimg_learn.json','w'),indent=0)
i=d['gfx1013']['32']; print(i['mn'],i['st'],i['def'])
